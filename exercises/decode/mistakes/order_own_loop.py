# kind: wrong
# about: runs its own decode loop instead of the global generate, so it tests nothing
# expect call_order_is_sequential: wrong /never (called|calls|runs|ran) generate|own loop|does not (call|run) generate|(instead of|without) (calling |running )?generate/

def call_order_is_sequential(next_token, prompt, n):
    seq = list(prompt)
    lengths = []
    for _ in range(n):
        lengths.append(len(seq))
        seq.append(next_token(seq))
    return lengths == [len(prompt) + k for k in range(n)]
