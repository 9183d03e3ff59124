# kind: correct
# about: Part 1 worked step by step with named values, rounded where allowed

dense_fp8 = {sparse_tflops}e12 / 2  # the datasheet figure is with sparsity
bandwidth = {tb_per_s}e12
ridge = dense_fp8 / bandwidth
crossover_h100 = round(ridge * 1 / 2)  # rounded to a whole batch
weight_read = {params_b}e9 / bandwidth
spike_ms = max(2 * {params_b}e9 * ({prompt_len} + {batch}) / dense_fp8, weight_read) * 1e3
chunk_ms = float(f"{max(2 * {params_b}e9 * ({batch} + {chunk}) / dense_fp8, weight_read) * 1e3:.3g}")  # 3 significant figures
