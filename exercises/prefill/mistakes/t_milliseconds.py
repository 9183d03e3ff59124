# kind: wrong
# about: returns milliseconds
# expect ttft_seconds: wrong /milli|1,000/

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    seconds = prefill_flops(n_params, prompt_len) / (peak_flops * utilisation)
    return seconds * 1000
