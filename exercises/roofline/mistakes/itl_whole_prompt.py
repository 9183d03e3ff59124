# kind: wrong
# about: puts the whole prompt in the pass whatever the chunk size
# expect itl_during_prefill: wrong /whole prompt in every pass/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    return forward_seconds(n_params, bytes_per_param, batch + prefill_tokens, peak_flops, bandwidth)
