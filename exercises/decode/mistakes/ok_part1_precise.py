# kind: correct
# about: Part 1 as plain numbers, rounded as asked (2 and 1 decimal places)

gb_per_step = 13.0
ms_per_token = 3.88
max_tokens_per_s = 257.7
