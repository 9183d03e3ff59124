# kind: wrong
# about: the milliseconds per step rounded to one decimal before 1000 is divided by them (blind TA's tps_early_round)
# expect max_tokens_per_s: wrong /rounded first|round only the final/

max_tokens_per_s = 1000 / round({params_b}e9 * {bytes_per_param} / {tb_per_s}e12 * 1e3, 1)
