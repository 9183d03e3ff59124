# kind: wrong
# about: gives one user's tokens/s
# expect fleet_rate: wrong /one user's rate/

fleet_rate = 3.35e12 / (8e9 + 16 * 2000 * 2 * 32 * 8 * 128 * 2)
