# kind: wrong
# about: ignores the KV cache: only the weights are read
# expect kv_step_seconds: wrong /cache (is )?(missing|left out|ignored)|ignores? the (kv )?cache|without the (kv )?cache|forg[oe]t the (kv )?cache|only the weights/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return decode_step_seconds(param_bytes, bandwidth)
