# kind: wrong
# about: reads 1 TB/s as 1 GB/s (1e9 bytes/s), so 1000 times too slow
# expect ms_per_token: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds|TB/s,? not GB/s|GB/s (instead of|not|rather than) TB/s|terabyte/

bandwidth = 1e9  # 1 TB/s
ms_per_token = 14e9 / bandwidth * 1000
