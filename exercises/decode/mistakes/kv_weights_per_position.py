# kind: wrong
# about: multiplies the weights by the context length too
# expect kv_step_seconds: wrong /weights (are read )?once|bracket|parenthes|precedence|context_len times|per position|for every position|once per step|(do|does) not multiply/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token) * context_len / bandwidth
