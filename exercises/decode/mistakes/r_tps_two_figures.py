# kind: wrong
# about: the tokens per second rounded to 2 significant figures, where one decimal place is asked for
# expect max_tokens_per_s: wrong /right value (rounded|cut)|significant figure|at least 1 decimal/

max_tokens_per_s = float(f"{{tb_per_s}e12 / ({params_b}e9 * {bytes_per_param}):.2g}")
