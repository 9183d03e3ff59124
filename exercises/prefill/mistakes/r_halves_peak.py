# kind: wrong
# about: halves the peak inside the function, thinking of the sparsity footnote
# expect ridge_point: wrong /already the dense peak|halved/

def ridge_point(peak_flops, bandwidth):
    dense = peak_flops / 2  # datasheets quote sparse numbers
    return dense / bandwidth
