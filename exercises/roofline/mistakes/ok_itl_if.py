# kind: correct
# about: an if for a prompt shorter than a chunk

def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    if prefill_tokens < chunk_tokens:
        tokens = batch + prefill_tokens  # the whole prompt fits in one chunk
    else:
        tokens = batch + chunk_tokens
    return forward_seconds(n_params, bytes_per_param, tokens, peak_flops, bandwidth)
