# kind: wrong
# about: averages the gaps and inverts: one average stream
# expect fleet_tokens_per_second: wrong /one average stream|mean gap/

def fleet_tokens_per_second(itls):
    if not itls:
        return 0.0
    return 1 / (sum(itls) / len(itls))
