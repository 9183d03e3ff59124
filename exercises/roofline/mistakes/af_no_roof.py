# kind: wrong
# about: memory's limit only: forgets that the chip has a peak
# expect attainable_flops: wrong /no roof/

def attainable_flops(intensity, peak_flops, bandwidth):
    return intensity * bandwidth  # FLOPs per byte x bytes per second
