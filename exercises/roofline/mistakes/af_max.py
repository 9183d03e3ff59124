# kind: wrong
# about: takes the larger of the two limits, as if the faster one set the rate
# expect attainable_flops: wrong /larger of the two limits/

def attainable_flops(intensity, peak_flops, bandwidth):
    return max(peak_flops, intensity * bandwidth)
