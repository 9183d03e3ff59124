# kind: wrong
# about: returns the H100 example's answer whatever the chip
# expect ridge_point: wrong /ignores? (its|the) (inputs|arguments)|hard-?coded|constant|same (value|result|answer) (for|whatever|every)|does not (change|depend)|whatever the inputs/

def ridge_point(peak_flops, bandwidth):
    # H100: 989 TFLOP/s, 3.35 TB/s
    return 295.2
