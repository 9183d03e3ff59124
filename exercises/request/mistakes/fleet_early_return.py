# kind: wrong
# about: returns inside the loop
# expect fleet_tokens_per_second: wrong /first stream/

def fleet_tokens_per_second(itls):
    total = 0.0
    for itl in itls:
        total += 1 / itl
        return total
    return total
