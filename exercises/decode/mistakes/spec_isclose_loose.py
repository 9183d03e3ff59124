# kind: wrong
# about: treats any a within 0.1 % of 1 as 1 (math.isclose with rel_tol=1e-3)
# expect expected_tokens_per_pass: wrong /close to 1 is not 1|a = 1 exactly/

import math


def expected_tokens_per_pass(k, a):
    if math.isclose(a, 1.0, rel_tol=1e-3):
        return float(k + 1)
    return (1 - a ** (k + 1)) / (1 - a)
