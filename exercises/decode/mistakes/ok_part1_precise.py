# kind: correct
# about: Part 1 as plain numbers, rounded as asked (2 and 1 decimal places)

gb_per_step = round({params_b} * {bytes_per_param}, 2)
ms_per_token = round({params_b}e9 * {bytes_per_param} / {tb_per_s}e12 * 1000, 2)
max_tokens_per_s = round({tb_per_s}e12 / ({params_b}e9 * {bytes_per_param}), 1)
