# kind: wrong
# about: counts the KV bytes twice (once for K and once for V, though kv_bytes_per_token already holds both)
# expect kv_step_seconds: wrong /twice|doubl|factor of 2|two times|K and V/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    k_and_v = 2 * kv_bytes_per_token  # keys and values
    return (param_bytes + k_and_v * context_len) / bandwidth
