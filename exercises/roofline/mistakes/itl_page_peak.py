# kind: wrong
# about: writes the replica's FP8 peak in place of peak_flops
# expect itl_during_prefill: wrong /fixed|in place of `peak_flops`|hard-coded/

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    tokens = batch + min(chunk_tokens, prefill_tokens)
    return forward_seconds(n_params, bytes_per_param, tokens, 3.958e15, bandwidth)
