# kind: wrong
# about: loops over range(prompt_len, n_tokens), mixing up the count with the end position
# expect kv_decode_time: wrong /too few|n_tokens steps|number of steps|range\(prompt_len/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    total = 0.0
    for ctx in range(prompt_len, n_tokens):
        total += kv_step_seconds(param_bytes, kv_bytes_per_token, ctx, bandwidth)
    return total
