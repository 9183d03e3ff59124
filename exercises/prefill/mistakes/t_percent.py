# kind: wrong
# about: treats the utilisation as a percentage
# expect ttft_seconds: wrong /read as a percentage|0\.28 for 28%/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    achieved = peak_flops * utilisation / 100  # utilisation in %
    return prefill_flops(n_params, prompt_len) / achieved
