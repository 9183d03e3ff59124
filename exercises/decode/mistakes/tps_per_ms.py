# kind: wrong
# about: 1 / (ms per token): tokens per millisecond instead of per second (1000x)
# expect max_tokens_per_s: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds|per millisecond|tokens per ms/

max_tokens_per_s = 1 / ({params_b}e9 * {bytes_per_param} / {tb_per_s}e12 * 1000)
