# kind: wrong
# about: returns the worked example's 71.4 whatever the inputs
# expect tokens_per_second: wrong /ignores? (its|the) (inputs|arguments)|hard-?coded|constant|same (value|result|answer) (for|whatever|every)|does not (change|depend)|whatever the inputs/

def tokens_per_second(param_bytes, bandwidth):
    return 71.4
