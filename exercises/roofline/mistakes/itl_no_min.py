# kind: wrong
# about: always adds a full chunk, even for a short prompt
# expect itl_during_prefill: wrong /full chunk even when the prompt is shorter/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    return forward_seconds(n_params, bytes_per_param, batch + chunk_tokens, peak_flops, bandwidth)
