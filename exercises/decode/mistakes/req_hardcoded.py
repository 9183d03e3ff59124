# kind: wrong
# about: returns the example's 0.40
# expect request_time: wrong /ignores? (its|the) (inputs|arguments)|hard-?coded|constant|same (value|result|answer) (for|whatever|every)|does not (change|depend)|whatever the inputs/

def request_time(ttft, itl, n_out):
    return 0.40
