# kind: wrong
# about: times the decode step and the chunk as two passes
# expect itl_during_prefill: wrong /two passes/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    decode = forward_seconds(n_params, bytes_per_param, batch, peak_flops, bandwidth)
    chunk = forward_seconds(n_params, bytes_per_param, min(chunk_tokens, prefill_tokens), peak_flops, bandwidth)
    return decode + chunk
