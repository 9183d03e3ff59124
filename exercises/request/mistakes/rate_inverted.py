# kind: wrong
# about: divides T by n_out
# expect request_tokens_per_s: wrong /upside down|seconds per token/

request_tokens_per_s = 2.488 / 60
