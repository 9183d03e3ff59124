# kind: wrong
# about: count divided by the mean gap
# expect fleet_tokens_per_second: wrong /gaps were averaged/

def fleet_tokens_per_second(itls):
    if not itls:
        return 0.0
    mean_itl = sum(itls) / len(itls)
    return len(itls) / mean_itl
