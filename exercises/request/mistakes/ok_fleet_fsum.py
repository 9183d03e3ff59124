# kind: correct
# about: math.fsum of the rates

import math

def fleet_tokens_per_second(itls):
    return math.fsum(1 / g for g in itls)
