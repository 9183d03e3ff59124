# kind: wrong
# about: halves the peak to be safe about sparsity
# expect attainable_flops: wrong /peak halved|already the dense peak/

def attainable_flops(intensity, peak_flops, bandwidth):
    dense = peak_flops / 2  # the datasheet figure is with sparsity
    return min(dense, intensity * bandwidth)
