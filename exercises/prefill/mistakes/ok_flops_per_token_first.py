# kind: correct
# about: FLOPs per token first, then times the prompt

def prefill_flops(n_params, prompt_len):
    flops_per_token = 2 * n_params  # a multiply and an add per weight
    return flops_per_token * prompt_len
