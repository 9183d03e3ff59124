# kind: wrong
# about: gives ms_per_token in seconds, then works max_tokens_per_s right from it as 1000 / ms_per_token (one slip: it costs ms_per_token only)
# expect ms_per_token: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds/

gb_per_step = {params_b} * {bytes_per_param}
ms_per_token = gb_per_step * 1e9 / ({tb_per_s} * 1e12)  # bytes / (bytes per second)
max_tokens_per_s = 1000 / ms_per_token
