# kind: wrong
# about: the prefill FLOPs written to 2 significant figures, where the exact count is asked for
# expect prompt_flops: wrong /right value (rounded|cut)|rounded to 2 significant figures|full value/

prompt_flops = float(f"{2 * {params_b}e9 * {prompt_len}:.2g}")
