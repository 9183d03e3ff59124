# kind: correct
# about: values computed from each other, choices with spaces and in lower case

gb_per_step = 13e9 * 1 / 1e9
ms_per_token = gb_per_step * 1e9 / 3.35e12 * 1000
max_tokens_per_s = 1000 / ms_per_token
answer_sequential = " a "
answer_batching_bug = "b"
