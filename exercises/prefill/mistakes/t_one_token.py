# kind: wrong
# about: times one token instead of the whole prompt
# expect ttft_seconds: wrong /one token's FLOPs|all prompt_len tokens/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    return prefill_flops(n_params, 1) / (peak_flops * utilisation)
