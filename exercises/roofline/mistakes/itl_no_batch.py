# kind: wrong
# about: times the chunk alone
# expect itl_during_prefill: wrong /decode tokens left out/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    chunk = min(chunk_tokens, prefill_tokens)
    return forward_seconds(n_params, bytes_per_param, chunk, peak_flops, bandwidth)
