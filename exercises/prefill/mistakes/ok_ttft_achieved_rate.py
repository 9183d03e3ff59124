# kind: correct
# about: computes the achieved FLOP/s first

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    achieved_flops_per_s = peak_flops * utilisation
    return prefill_flops(n_params, prompt_len) / achieved_flops_per_s
