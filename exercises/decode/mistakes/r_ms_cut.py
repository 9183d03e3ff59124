# kind: wrong
# about: the milliseconds per step cut to one decimal with int(x * 10) / 10, where two decimals are asked for
# expect ms_per_token: wrong /right value (rounded|cut)|cut short|truncat|rounded to 1 decimal|at least 2 decimal/

ms_per_token = int({params_b}e9 * {bytes_per_param} / {tb_per_s}e12 * 1e4) / 10
