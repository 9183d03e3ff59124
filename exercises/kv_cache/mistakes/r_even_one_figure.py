# kind: wrong
# about: the even context rounded to 1 significant figure ("about 100,000 tokens"), past the 3 the page allows
# expect even_context: wrong /right value (rounded|cut)|rounded to 1 significant figure|too far/

per_token = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2
even_context = float(f"{{params_b}e9 * 2 / per_token:.1g}")
