# kind: wrong
# about: returns an ordinary decode step, as if the prefill cost nothing
# expect itl_during_prefill: wrong /ordinary decode step/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    return forward_seconds(n_params, bytes_per_param, batch, peak_flops, bandwidth)
