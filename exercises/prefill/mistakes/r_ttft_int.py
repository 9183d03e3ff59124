# kind: wrong
# about: the TTFT cut to whole milliseconds with int() instead of rounded
# expect ttft_ms: wrong /right value (rounded|cut)|cut to a whole number|int\(\)|truncat/

dense = {sparse_tflops}e12 / 2  # the datasheet's FP8 figure is with sparsity
ttft_ms = int(2 * {params_b}e9 * {prompt_len} / (dense * 0.4) * 1000)  # whole ms is precise enough
