# kind: wrong
# about: the wrapper records len(prompt) on every call instead of the length of the sequence it was handed
# expect call_order_is_sequential: wrong /records the prompt|length of the prompt|prompt's length|same length (at|on) every call|never changes/

def call_order_is_sequential(next_token, prompt, n):
    seen = []

    def wrapper(sequence):
        seen.append(len(prompt))
        return next_token(sequence)

    generate(wrapper, prompt, n)
    return seen == list(range(len(prompt), len(prompt) + n))
