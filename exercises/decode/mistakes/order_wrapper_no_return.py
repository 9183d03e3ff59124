# kind: wrong
# about: the wrapper records the length but forgets to return the model's token
# expect call_order_is_sequential: wrong /return(s|ed)? (the )?(model's |next_token's )?token|wrapper returns? None|returns? nothing|hand(s|ed)? (the token )?back|None (was|is) appended|appended None/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        next_token(seq)

    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
