# kind: wrong
# about: expects the first call to see len(prompt) + 1 (counts the token being generated)
# expect call_order_is_sequential: wrong /first call (sees|gets|should see)|len\(prompt\) ?\+ ?1|off[- ]by[- ]one|one too (big|high|long|many)|starts? one too (late|high)/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    expected = list(range(len(prompt) + 1, len(prompt) + n + 1))
    return lengths == expected
