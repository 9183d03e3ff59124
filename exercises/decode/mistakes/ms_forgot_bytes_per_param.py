# kind: wrong
# about: uses 7e9 bytes (forgets 2 bytes per parameter), so half the time
# expect ms_per_token: wrong /factor of 2|twice|two times|half|bytes per param|2 bytes/

ms_per_token = 7e9 / 1e12 * 1000
