# kind: wrong
# about: passes the bandwidth where forward_seconds wants the peak, and the peak where it wants the bandwidth
# expect itl_during_prefill: wrong /swapped|other's place/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    tokens = batch + min(chunk_tokens, prefill_tokens)
    return forward_seconds(n_params, bytes_per_param, tokens, bandwidth, peak_flops)
