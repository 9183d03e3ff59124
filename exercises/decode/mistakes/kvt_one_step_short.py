# kind: wrong
# about: loops range(n_tokens - 1): one step too few
# expect kv_decode_time: wrong /one (step|token) too few|n_tokens ?- ?1 steps|one (step|token) (less|short|fewer)|missing (a|one|the last) step/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    t = 0.0
    for k in range(n_tokens - 1):
        t += kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth)
    return t
