# kind: wrong
# about: 1 FLOP per parameter per token
# expect prefill_flops: wrong /multiply and an add|1 FLOP per parameter/

def prefill_flops(n_params, prompt_len):
    return n_params * prompt_len
