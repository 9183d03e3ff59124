# kind: wrong
# about: builds the result in a numpy array
# expect generate: wrong /numpy|ndarray|array|not a list/

import numpy as np

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
    return np.array(seq, dtype=int)
