# kind: wrong
# about: gives the time in seconds where milliseconds were asked
# expect ms_per_token: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds/

ms_per_token = {params_b}e9 * {bytes_per_param} / {tb_per_s}e12
