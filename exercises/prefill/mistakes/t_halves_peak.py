# kind: wrong
# about: halves the peak, to be safe about sparsity
# expect ttft_seconds: wrong /already the dense peak|peak halved/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    dense_peak = peak_flops / 2
    return prefill_flops(n_params, prompt_len) / (dense_peak * utilisation)
