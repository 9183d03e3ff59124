# kind: wrong
# about: gives the tokens that fit
# expect sequences_fit: wrong /tokens that fit/

sequences_fit = int(56e9 // 131072)
