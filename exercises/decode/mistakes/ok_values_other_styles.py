# kind: correct
# about: values computed from each other, choices with spaces and in lower case

gb_per_step = {params_b}e9 * {bytes_per_param} / 1e9
ms_per_token = gb_per_step * 1e9 / {tb_per_s}e12 * 1000
max_tokens_per_s = 1000 / ms_per_token
answer_sequential = " a "
answer_batching_bug = "b"
