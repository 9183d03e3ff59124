# kind: wrong
# about: returns the peak whatever the intensity
# expect attainable_flops: wrong /peak_flops alone|below the ridge point memory/

def attainable_flops(intensity, peak_flops, bandwidth):
    return peak_flops
