# kind: wrong
# about: writes the closed form for every a, so a = 1 raises ZeroDivisionError
# expect expected_tokens_per_pass: wrong /own branch|0 by 0|0 / 0|zero by zero/

def expected_tokens_per_pass(k, a):
    numerator = 1 - a ** (k + 1)
    denominator = 1 - a
    return numerator / denominator
