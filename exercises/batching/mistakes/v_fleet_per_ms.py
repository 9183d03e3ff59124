# kind: wrong
# about: divides 16 by the step time in ms
# expect fleet_rate: wrong /millisecond/

fleet_rate = 16 / ((8e9 + 16 * 2000 * 2 * 32 * 8 * 128 * 2) / 3.35e12 * 1000)
