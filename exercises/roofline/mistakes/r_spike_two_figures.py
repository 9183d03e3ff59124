# kind: wrong
# about: the spike rounded to 2 significant figures, one fewer than the page allows
# expect spike_ms: wrong /right value (rounded|cut)|rounded to 2 significant figures|too far/

dense_fp8 = {sparse_tflops}e12 / 2
weight_read = {params_b}e9 / ({tb_per_s}e12)
spike_ms = float(f"{max(2 * {params_b}e9 * ({prompt_len} + {batch}) / dense_fp8, weight_read) * 1e3:.2g}")
