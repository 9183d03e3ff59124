# kind: correct
# about: kv_decode_time with a while loop over the growing context

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    total = 0.0
    context = prompt_len
    while context < prompt_len + n_tokens:
        total += kv_step_seconds(param_bytes, kv_bytes_per_token, context, bandwidth)
        context += 1
    return total
