# kind: correct
# about: names the FLOPs and bytes per parameter first

def prefill_intensity(prompt_len, bytes_per_param):
    flops_per_param = 2 * prompt_len
    bytes_read_per_param = bytes_per_param
    return flops_per_param / bytes_read_per_param
