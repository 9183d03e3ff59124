# kind: wrong
# about: divides 1000 by the step time already in seconds: 1000 times too many
# expect max_tokens_per_s: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds|mixed units|mix(es|ed|ing)? (up )?(the )?units/

seconds_per_token = {params_b}e9 * {bytes_per_param} / {tb_per_s}e12
max_tokens_per_s = 1000 / seconds_per_token
