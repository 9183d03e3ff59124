# kind: correct
# about: adds up the tokens one by one in a loop

def prefill_flops(n_params, prompt_len):
    total = 0
    for _ in range(prompt_len):
        total += 2 * n_params
    return total
