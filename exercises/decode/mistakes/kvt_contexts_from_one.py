# kind: wrong
# about: sums contexts prompt_len + 1 .. prompt_len + n (counts the new token in its own context)
# expect kv_decode_time: wrong /off[- ]by[- ]one|prompt_len ?\+ ?1|one (position|token) too (many|long)|starts? (at|from) prompt_len|k ?= ?0|one too late/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    total = 0.0
    for k in range(1, n_tokens + 1):
        total += kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth)
    return total
