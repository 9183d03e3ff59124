# kind: wrong
# about: forgets the brackets: only the KV bytes get divided by the bandwidth
# expect kv_step_seconds: wrong /bracket|parenthes|precedence|only the (kv|cache)( bytes)? (are |is )?(get |gets )?divided|whole sum|sum first|before dividing/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return param_bytes + kv_bytes_per_token * context_len / bandwidth
