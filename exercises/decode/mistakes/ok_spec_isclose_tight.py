# kind: correct
# about: special-cases a = 1 with math.isclose at its default tolerance (1e-9), a sum of powers otherwise

import math


def expected_tokens_per_pass(k, a):
    if math.isclose(a, 1.0):
        return k + 1
    return sum(a ** i for i in range(k + 1))
