# kind: wrong
# about: only checks that generate's output has the right length, never records the calls
# expect call_order_is_sequential: wrong /record|wrapper|calls? (to )?next_token|output|result('s)? length|lengths (seen|passed)|call order/

def call_order_is_sequential(next_token, prompt, n):
    out = generate(next_token, prompt, n)
    return len(out) == len(prompt) + n
