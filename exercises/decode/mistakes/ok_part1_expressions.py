# kind: correct
# about: Part 1 typed as arithmetic expressions, step by step with named intermediate values

params = {params_b}e9
bytes_per_param = {bytes_per_param}  # {precision}
bandwidth = {tb_per_s}e12  # {tb_per_s} TB/s
weight_bytes = params * bytes_per_param
gb_per_step = weight_bytes / 1e9
ms_per_token = weight_bytes / bandwidth * 1000
max_tokens_per_s = round(1000 / ms_per_token, 1)
