# kind: wrong
# about: 1 / 14 ms: tokens per millisecond instead of per second (1000x)
# expect max_tokens_per_s: wrong /1000|thousand|milli|per second|seconds/

max_tokens_per_s = 1 / 14
