# kind: wrong
# about: divides by the worked example's 1 TB/s instead of the bandwidth it is given
# expect decode_step_seconds: wrong /hard-?coded|ignor|does not (change|depend)|whatever the|the bandwidth (it is|you are|was) given|fixed/

def decode_step_seconds(param_bytes, bandwidth):
    one_tb_per_s = 1e12
    return param_bytes / one_tb_per_s
