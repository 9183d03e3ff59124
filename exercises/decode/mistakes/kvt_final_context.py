# kind: wrong
# about: charges every step at the final context length
# expect kv_decode_time: wrong /final|longest|grow|last (context|step)/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    longest = prompt_len + n_tokens
    return n_tokens * kv_step_seconds(param_bytes, kv_bytes_per_token, longest, bandwidth)
