# kind: wrong
# about: gives seconds, not milliseconds
# expect ttft_ms: wrong /time in seconds|1,000/

ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2 * 0.4)
