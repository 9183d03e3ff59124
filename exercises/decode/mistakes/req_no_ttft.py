# kind: wrong
# about: forgets the time to first token
# expect request_time: wrong /ttft|first token|prefill/

def request_time(ttft, itl, n_out):
    return (n_out - 1) * itl
