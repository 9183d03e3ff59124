# kind: wrong
# about: reads {tb_per_s} TB/s as {tb_per_s} GB/s ({tb_per_s}e9 bytes/s), so 1000 times too slow
# expect ms_per_token: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds|TB/s,? not GB/s|GB/s (instead of|not|rather than) TB/s|terabyte/

bandwidth = {tb_per_s}e9  # {tb_per_s} TB/s
ms_per_token = {params_b}e9 * {bytes_per_param} / bandwidth * 1000
