# kind: wrong
# about: returns the worked example's 0.014 whatever the inputs
# expect decode_step_seconds: wrong /ignores? (its|the) (inputs|arguments)|hard-?coded|constant|same (value|result|answer) (for|whatever|every)|does not (change|depend)|whatever the inputs/

def decode_step_seconds(param_bytes, bandwidth):
    return 0.014  # 14 GB at 1 TB/s
