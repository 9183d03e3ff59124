# kind: wrong
# about: does not round down
# expect sequences_fit: wrong /not rounded down/

sequences_fit = 56e9 / (131072 * 8192)
