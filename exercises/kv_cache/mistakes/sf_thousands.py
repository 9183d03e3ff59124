# kind: wrong
# about: reads the context's K as a thousand tokens ({context_text} taken as a round thousands)
# expect sequences_fit: wrong /1,024|,000 tokens/

k = {context} // 1024
sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 2) // (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * k * 1000))
