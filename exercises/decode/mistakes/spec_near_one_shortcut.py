# kind: wrong
# about: guards a = 1 with a tolerance of 1e-2, so an a of 0.995 is answered as if every draft were kept
# expect expected_tokens_per_pass: wrong /close to 1 is not 1|a = 1 exactly/

def expected_tokens_per_pass(k, a):
    if abs(a - 1) < 0.01:  # avoid dividing by (almost) zero
        return k + 1
    return (1 - a ** (k + 1)) / (1 - a)
