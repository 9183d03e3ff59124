# kind: correct
# about: compares without dividing: 2 L bandwidth > peak b

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    # 2L/b > peak/bw  <=>  2L * bw > peak * b  (all positive)
    return 2 * prompt_len * bandwidth > peak_flops * bytes_per_param
