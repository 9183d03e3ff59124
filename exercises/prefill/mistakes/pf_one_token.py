# kind: wrong
# about: gives the FLOPs of one token, forgetting the prompt's length
# expect prompt_flops: wrong /one token|every one of the prompt tokens/

prompt_flops = 2 * {params_b}e9  # per token
