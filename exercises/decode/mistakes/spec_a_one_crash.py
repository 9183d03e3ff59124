# kind: wrong
# about: uses the formula as is, so a = 1 divides by zero
# expect expected_tokens_per_pass: wrong /ZeroDivisionError|divi(des|sion) by zero|a ?= ?1/

def expected_tokens_per_pass(k, a):
    return (1 - a ** (k + 1)) / (1 - a)
