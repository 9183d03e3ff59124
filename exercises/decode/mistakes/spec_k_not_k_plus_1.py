# kind: wrong
# about: raises a to the k, not k + 1
# expect expected_tokens_per_pass: wrong /one (token )?(too )?(few|short)|off by one|exponent|one power short/

def expected_tokens_per_pass(k, a):
    if a == 1:
        return k
    return (1 - a ** k) / (1 - a)
