# kind: wrong
# about: leaves out the caches
# expect fleet_rate: wrong /caches left out|caches too/

fleet_rate = {batch} * {tb_per_s}e12 / {params_b}e9
