# kind: wrong
# about: checks only that the lengths increase, so skipped lengths pass
# expect call_order_is_sequential: wrong /skip|gap|by (exactly )?one|consecutive|increas(es|ing) (is not enough|only)|every length/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    for a, b in zip(lengths, lengths[1:]):
        if b <= a:
            return False
    return True
