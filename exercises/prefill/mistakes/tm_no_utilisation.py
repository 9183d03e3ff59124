# kind: wrong
# about: assumes 100% of the dense peak
# expect ttft_ms: wrong /100% of the peak|40% utilisation too/

ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2) * 1000
