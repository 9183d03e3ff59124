# kind: correct
# about: generate built on a one-step helper function

def _decode_one(next_token, sequence):
    """One decode step: the model reads the whole sequence and we append its token."""
    sequence.append(next_token(sequence))


def generate(next_token, prompt, n):
    sequence = [t for t in prompt]
    for _ in range(n):
        _decode_one(next_token, sequence)
    return sequence
