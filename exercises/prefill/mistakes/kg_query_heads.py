# kind: wrong
# about: uses the {q_heads} query heads instead of the {kv_heads} KV heads
# expect kv_gb: wrong /what the query heads give|KV heads .*are stored/

kv_gb = 2 * {layers} * {q_heads} * {head_dim} * 1 * {prompt_len} / 1e9
