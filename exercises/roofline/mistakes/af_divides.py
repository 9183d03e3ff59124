# kind: wrong
# about: divides the intensity by the bandwidth
# expect attainable_flops: wrong /divided by the bandwidth|a product/

def attainable_flops(intensity, peak_flops, bandwidth):
    memory_limit = intensity / bandwidth
    return min(peak_flops, memory_limit)
