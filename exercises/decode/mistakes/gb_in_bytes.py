# kind: wrong
# about: gives the bytes where GB were asked
# expect gb_per_step: wrong /in bytes|bytes,? not (gb|gigabytes)|not (in )?(gb|gigabytes)|1e9 times|factor of (1e9|10\^9|a billion)|billion times|forg[oe]t to divide|counting bytes|asks for gigabytes|bytes (instead of|rather than) (gb|gigabytes)/

params = {params_b}e9
bytes_per_param = {bytes_per_param}
gb_per_step = params * bytes_per_param
