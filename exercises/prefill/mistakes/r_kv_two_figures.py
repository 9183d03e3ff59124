# kind: wrong
# about: the KV cache written rounded to 2 significant figures, one fewer than the page allows
# expect kv_gb: wrong /right value (rounded|cut)|rounded to 2 significant figures|too far/

kv_bytes = 2 * {layers} * {kv_heads} * {head_dim} * 1 * {prompt_len}  # FP8 cache: 1 byte per value
kv_gb = float(f"{kv_bytes / 1e9:.2g}")  # about that much
