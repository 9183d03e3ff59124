# kind: wrong
# about: calls kv_step_seconds with the weights and the bytes per token in each other's places
# expect kv_decode_time: wrong /swapped|other's place|another order/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    total = 0.0
    for k in range(n_tokens):
        total += kv_step_seconds(kv_bytes_per_token, param_bytes, prompt_len + k, bandwidth)
    return total
