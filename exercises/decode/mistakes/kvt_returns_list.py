# kind: wrong
# about: returns the list of step times instead of their sum
# expect kv_decode_time: wrong /returned a list|a list,? not|not a number|sum (them|it) up|instead of (their|the) sum/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    steps = []
    for k in range(n_tokens):
        steps.append(kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth))
    return steps
