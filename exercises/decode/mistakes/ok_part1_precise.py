# kind: correct
# about: Part 1 as plain numbers, the last one more precise than asked (71.43)

gb_per_step = 14.0
ms_per_token = 14
max_tokens_per_s = 71.43
