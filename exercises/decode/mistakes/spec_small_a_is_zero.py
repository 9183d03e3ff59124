# kind: wrong
# about: rounds a tiny acceptance rate down to "nothing accepted" and returns 1
# expect expected_tokens_per_pass: wrong /close to 0|a = 0 exactly/

def expected_tokens_per_pass(k, a):
    if a < 0.05:
        return 1.0  # practically nothing is accepted
    if a == 1:
        return k + 1
    return (1 - a ** (k + 1)) / (1 - a)
