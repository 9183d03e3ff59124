# kind: wrong
# about: treats the utilisation as a percentage and divides it by 100
# expect ttft_seconds: wrong /divided by 100/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    achieved = peak_flops * utilisation / 100  # 28% of the peak
    return prefill_flops(n_params, prompt_len) / achieved
