# kind: correct
# about: writes the formula inline, dividing twice

def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    return 2 * n_params * prompt_len / peak_flops / utilisation
