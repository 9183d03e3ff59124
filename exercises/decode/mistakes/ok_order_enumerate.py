# kind: correct
# about: call_order_is_sequential comparing the lengths with enumerate

def call_order_is_sequential(next_token, prompt, n):
    seen = []
    def wrapped(sequence):
        seen.append(len(sequence))
        token = next_token(sequence)
        return token
    generate(wrapped, prompt, n)
    start = len(prompt)
    return len(seen) == n and all(length == start + i for i, length in enumerate(seen))
