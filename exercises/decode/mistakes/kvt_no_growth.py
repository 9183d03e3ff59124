# kind: wrong
# about: uses the prompt's context for every step: the cache does not grow
# expect kv_decode_time: wrong /grow|kept constant|same context|never changes|does not change/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    return n_tokens * kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len, bandwidth)
