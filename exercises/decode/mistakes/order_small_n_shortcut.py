# kind: wrong
# about: skips running generate for n <= 1 ("nothing can be out of order")
# expect call_order_is_sequential: wrong /n ?= ?[01]\b|small n|n <= 1|without running|does not run|never (ran|runs|called|calls) generate|skip(s|ped)? (running )?generate/

def call_order_is_sequential(next_token, prompt, n):
    if n <= 1:
        return True  # one call can't be out of order
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
