# kind: wrong
# about: divides by the count, so an empty fleet crashes
# expect fleet_tokens_per_second: wrong /no request decoding|sum of none/

def fleet_tokens_per_second(itls):
    n = len(itls)
    return n * (sum(1 / x for x in itls) / n)
