# kind: wrong
# about: uses the BF16 dense rate (989.5 TFLOPS) for an FP8 model
# expect ttft_ms: wrong /BF16|halved twice/

ttft_ms = 2 * 8e9 * 2700 / (989.5e12 * 0.4) * 1000
