# kind: wrong
# about: keeps the worked example's 1 TB/s instead of the {gpu}'s {tb_per_s} TB/s
# expect ms_per_token: wrong /1 TB\/s|worked example/

ms_per_token = {params_b}e9 * {bytes_per_param} / 1e12 * 1000
