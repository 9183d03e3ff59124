# kind: wrong
# about: divides 1000 by 0.014 (already seconds): 1000 times too many
# expect max_tokens_per_s: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds|mixed units|mix(es|ed|ing)? (up )?(the )?units/

seconds_per_token = 14e9 / 1e12
max_tokens_per_s = 1000 / seconds_per_token
