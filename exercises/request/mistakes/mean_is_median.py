# kind: wrong
# about: gives the median as the mean
# expect mean_ms: wrong /median/

mean_ms = 237.5
