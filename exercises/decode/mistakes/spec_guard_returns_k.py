# kind: wrong
# about: the formula right, only the a == 1 branch returns k, not k + 1 (blind TA's f_etp_guard_k)
# expect expected_tokens_per_pass: wrong /a == 1 branch returning k.*only the branch/

def expected_tokens_per_pass(k, a):
    if a == 1:
        return k
    return (1 - a ** (k + 1)) / (1 - a)
