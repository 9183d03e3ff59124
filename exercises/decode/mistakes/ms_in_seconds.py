# kind: wrong
# about: gives the time in seconds (0.014) where milliseconds were asked
# expect ms_per_token: wrong /1000|thousand|milli|seconds|\bms\b/

ms_per_token = 14e9 / 1e12
