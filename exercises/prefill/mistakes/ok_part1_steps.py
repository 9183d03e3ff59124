# kind: correct
# about: Part 1 worked step by step with named values, rounded to 3 significant figures where allowed

n_params = {params_b}e9
tokens = {prompt_len}
dense_fp8 = {sparse_tflops}e12 / 2  # the datasheet figure is with sparsity
prompt_flops = 2 * n_params * tokens
prompt_intensity = prompt_flops / (n_params * 1)  # FLOPs / bytes of weights
ttft_ms = float(f"{prompt_flops / (dense_fp8 * 0.4) * 1000:.3g}")  # rounded to 3 significant figures
kv_per_token = 2 * {layers} * {kv_heads} * {head_dim} * 1  # bytes per token, FP8 cache
kv_gb = float(f"{kv_per_token * tokens / 1e9:.3g}")
