# kind: wrong
# about: returns the docstring example 1.4
# expect decode_time: wrong /ignores? (its|the) (inputs|arguments)|hard-?coded|constant|same (value|result|answer) (for|whatever|every)|does not (change|depend)|whatever the inputs/

def decode_time(n_tokens, param_bytes, bandwidth):
    return 1.4
