# kind: wrong
# about: counts the first output token as part of prefill
# expect prefill_flops: wrong /one token too many|first output token/

def prefill_flops(n_params, prompt_len):
    tokens = prompt_len + 1  # the prompt and the first generated token
    return 2 * n_params * tokens
