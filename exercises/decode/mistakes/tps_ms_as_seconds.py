# kind: wrong
# about: divides 1000 by 0.014 (already seconds): 1000 times too many
# expect max_tokens_per_s: wrong /1000|thousand|milli|seconds/

seconds_per_token = 14e9 / 1e12
max_tokens_per_s = 1000 / seconds_per_token
