# kind: wrong
# about: only checks that generate's output has the right length, never records the calls
# expect call_order_is_sequential: wrong /(output|result)('s)? length|length of the (output|result)|only (checks|compares) the (output|result)|never (wraps|records|wrapped)|without (a )?wrapper|not (wrapped|recorded)/

def call_order_is_sequential(next_token, prompt, n):
    out = generate(next_token, prompt, n)
    return len(out) == len(prompt) + n
