# kind: wrong
# about: adds the gaps, then inverts
# expect fleet_tokens_per_second: wrong /gaps were added up/

def fleet_tokens_per_second(itls):
    if not itls:
        return 0.0
    return 1 / sum(itls)
