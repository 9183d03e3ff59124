# kind: wrong
# about: assumes a BF16 cache (2 bytes) although the question says FP8
# expect kv_gb: wrong /BF16|counted twice/

kv_gb = 2 * {layers} * {kv_heads} * {head_dim} * 2 * {prompt_len} / 1e9
