# kind: wrong
# about: the intensity compared with peak_flops without the bandwidth (blind TA's f_att_no_bw)
# expect attainable_flops: wrong /without the bandwidth/

def attainable_flops(intensity, peak_flops, bandwidth):
    return min(peak_flops, intensity)
