# kind: correct
# about: Part 1 worked step by step with named values, rounded where allowed

dense_fp8 = 3958e12 / 2  # the datasheet figure is with sparsity
bandwidth = 3.35e12
ridge = dense_fp8 / bandwidth
crossover_h100 = 295  # ridge x 1 / 2, rounded to a whole batch
weight_read = 32e9 / bandwidth
spike_ms = max(2 * 32e9 * (6000 + 128) / dense_fp8, weight_read) * 1e3
chunk_ms = 12.4  # 384 tokens: compute-bound, rounded to 3 significant figures
