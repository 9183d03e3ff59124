# kind: wrong
# about: checks only how many calls there were, not which lengths they saw
# expect call_order_is_sequential: wrong /only (the )?(count|number)|counts? (the )?calls|not which lengths|number of calls only/

def call_order_is_sequential(next_token, prompt, n):
    calls = 0

    def counting(seq):
        nonlocal calls
        calls += 1
        return next_token(seq)

    generate(counting, prompt, n)
    return calls == n
