# kind: wrong
# about: answers the {gpu_short}'s ridge point instead of the prefill's intensity
# expect prompt_intensity: wrong /ridge point/

prompt_intensity = {sparse_tflops}e12 / 2 / ({tb_per_s} * 1e12)
