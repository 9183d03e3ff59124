# kind: wrong
# about: counts the parameters in billions ({params_b})
# expect prompt_flops: wrong /billions|GFLOP/

prompt_flops = 2 * {params_b} * {prompt_len}
