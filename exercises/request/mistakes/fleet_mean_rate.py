# kind: wrong
# about: the mean of the streams' rates
# expect fleet_tokens_per_second: wrong /average stream|not their mean/

def fleet_tokens_per_second(itls):
    if len(itls) == 0:
        return 0.0
    rates = [1 / x for x in itls]
    return sum(rates) / len(rates)
