# kind: wrong
# about: forgets the time to first token
# expect request_time: wrong /ttft is missing|missing (the )?ttft|forg[oe]t (the )?ttft|without (the )?ttft|time to first token|wait for the first token/

def request_time(ttft, itl, n_out):
    return (n_out - 1) * itl
