# kind: wrong
# about: reads 3.35 TB/s as 3.35 GB/s (3.35e9 bytes/s), so 1000 times too slow
# expect ms_per_token: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds|TB/s,? not GB/s|GB/s (instead of|not|rather than) TB/s|terabyte/

bandwidth = 3.35e9  # 3.35 TB/s
ms_per_token = 13e9 / bandwidth * 1000
