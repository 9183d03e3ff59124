# kind: wrong
# about: multiplies by the utilisation
# expect ttft_seconds: wrong /multiplying by the utilisation/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    return prefill_flops(n_params, prompt_len) / peak_flops * utilisation
