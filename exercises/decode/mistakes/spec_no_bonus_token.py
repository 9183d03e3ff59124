# kind: wrong
# about: counts only the accepted drafted tokens, forgetting the token the large model adds each pass
# expect expected_tokens_per_pass: wrong /one (token )?(too )?(few|short)|off by one|bonus|(large|target) model('s)? (own )?token|missing (the )?(one|extra) token/

def expected_tokens_per_pass(k, a):
    # expected number of accepted draft tokens
    total = 0.0
    p = 1.0
    for i in range(k):
        p *= a
        total += p
    return total
