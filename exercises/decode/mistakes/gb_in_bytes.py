# kind: wrong
# about: gives the bytes (14e9) where GB were asked
# expect gb_per_step: wrong /bytes|1e9|10\^9|billion|GB/

params = 7e9
bytes_per_param = 2
gb_per_step = params * bytes_per_param
