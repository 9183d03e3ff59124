# kind: wrong
# about: leaves out the caches
# expect fleet_rate: wrong /caches left out|16 caches too/

fleet_rate = 16 * 3.35e12 / 8e9
