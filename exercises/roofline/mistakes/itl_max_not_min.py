# kind: wrong
# about: max(chunk_tokens, prefill_tokens) where min belongs (blind TA's f_itl_max)
# expect itl_during_prefill: wrong /max\(chunk_tokens, prefill_tokens\) where min/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    return forward_seconds(n_params, bytes_per_param, batch + max(chunk_tokens, prefill_tokens), peak_flops, bandwidth)
