# kind: wrong
# about: gives the FLOPs of one token, forgetting the prompt's length
# expect prompt_flops: wrong /one token|every one of the 2,700/

prompt_flops = 2 * 8e9  # per token
