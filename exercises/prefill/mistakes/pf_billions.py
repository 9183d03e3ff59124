# kind: wrong
# about: counts the parameters in billions (8)
# expect prompt_flops: wrong /billions|GFLOP/

prompt_flops = 2 * 8 * 2700
