# kind: wrong
# about: the chapter's 28% written in for the utilisation
# expect ttft_seconds: wrong /ignored|in place of `utilisation`/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    return prefill_flops(n_params, prompt_len) / (peak_flops * 0.28)
