# kind: wrong
# about: gives each weight twice its bytes ({precision} read as {bytes_per_param} x 2: INT4 taken as FP8's 1 byte, FP8 as BF16's 2), then works ms_per_token and max_tokens_per_s right from it (one slip: an INT4 learner's answers are then an FP8 learner's right ones, and still cost gb_per_step only)
# expect gb_per_step: wrong /not stored in (BF16|FP8)|\b2 bytes per parameter|\b1 byte per parameter/

bytes_per_weight = {bytes_per_param} * 2  # a 4-bit weight in a whole byte, an 8-bit one in two
gb_per_step = {params_b}e9 * bytes_per_weight / 1e9
ms_per_token = gb_per_step / {tb_per_s}
max_tokens_per_s = 1000 / ms_per_token
