# kind: wrong
# about: counts 1 FLOP per parameter per token
# expect prompt_flops: wrong /1 FLOP per parameter/

prompt_flops = {params_b}e9 * {prompt_len}
