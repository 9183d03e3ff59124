# kind: wrong
# about: ignores the utilisation
# expect ttft_seconds: wrong /utilisation left out|divide by both/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    return prefill_flops(n_params, prompt_len) / peak_flops
