# kind: correct
# about: a loop accumulating rates

def fleet_tokens_per_second(itls):
    total = 0.0
    for gap in itls:
        total = total + 1.0 / gap
    return total
