# kind: correct
# about: Part 1 worked step by step with named values, rounded to 3 significant figures where allowed

n_params = 8e9
tokens = 2700
dense_fp8 = 3958e12 / 2  # the datasheet figure is with sparsity
prompt_flops = 2 * n_params * tokens
prompt_intensity = prompt_flops / (n_params * 1)  # FLOPs / bytes of weights
ttft_ms = 54.6  # 4.32e13 / 7.916e14 s, rounded
kv_gb = 0.177  # 65,536 bytes per token x 2,700
