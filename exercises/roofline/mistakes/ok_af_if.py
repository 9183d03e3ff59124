# kind: correct
# about: an if/else on the ridge point

def attainable_flops(intensity, peak_flops, bandwidth):
    ridge = peak_flops / bandwidth
    if intensity < ridge:
        return intensity * bandwidth  # memory-bound: on the slope
    return peak_flops  # compute-bound: on the roof
