# kind: wrong
# about: keeps the worked example's 2 bytes per parameter though this model is stored in {precision} ({bytes_per_param} byte), then works ms_per_token and max_tokens_per_s right from it (one slip: on some numbers, 13e9 at 2 bytes, it is another learner's right answer, and still costs gb_per_step only)
# expect gb_per_step: wrong /not stored in BF16|\b2 bytes per parameter/

gb_per_step = {params_b}e9 * 2 / 1e9  # parameters x bytes, as in the worked example
ms_per_token = gb_per_step / {tb_per_s}  # GB / (TB/s) = ms
max_tokens_per_s = 1000 / ms_per_token
