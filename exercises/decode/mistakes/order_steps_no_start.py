# kind: wrong
# about: checks that lengths go up by one each call, but not where they start nor how many there are
# expect call_order_is_sequential: wrong /(never|not|doesn't|does not) check (the )?(start|first|count|number)|where (they|the lengths) start|how many calls/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    return all(lengths[i + 1] - lengths[i] == 1 for i in range(len(lengths) - 1))
