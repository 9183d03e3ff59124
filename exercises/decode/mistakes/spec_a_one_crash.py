# kind: wrong
# about: uses the formula as is, so a = 1 divides by zero
# expect expected_tokens_per_pass: wrong /own branch|0 by 0|0 / 0|zero by zero/

def expected_tokens_per_pass(k, a):
    return (1 - a ** (k + 1)) / (1 - a)
