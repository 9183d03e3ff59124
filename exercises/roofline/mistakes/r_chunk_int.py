# kind: wrong
# about: the chunked gap cut to whole milliseconds with int() instead of rounded
# expect chunk_ms: wrong /right value (rounded|cut)|cut to a whole number|int\(\)|truncat/

dense_fp8 = {sparse_tflops}e12 / 2
weight_read = {params_b}e9 / ({tb_per_s}e12)
chunk_ms = int(max(2 * {params_b}e9 * ({batch} + {chunk}) / dense_fp8, weight_read) * 1e3)
