# kind: wrong
# about: keeps the worked example's 1 TB/s instead of the H100's 3.35 TB/s
# expect ms_per_token: wrong /1 TB\/s|worked example/

ms_per_token = 13e9 / 1e12 * 1000
