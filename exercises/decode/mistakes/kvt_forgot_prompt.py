# kind: wrong
# about: uses context k, forgetting the prompt already sits in the cache
# expect kv_decode_time: wrong /prompt_len (is )?(missing|left out|ignored|forgotten|not added)|(forg[oe]t|without|missing|ignor\w*|leaves? out|left out)( the)? prompt|prompt('s tokens)? (are |is |sits )?(already )?in the (kv )?cache/

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    return sum(kv_step_seconds(param_bytes, kv_bytes_per_token, k, bandwidth) for k in range(n_tokens))
