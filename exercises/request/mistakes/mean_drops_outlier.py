# kind: wrong
# about: drops the 1900 ms outlier before averaging
# expect mean_ms: wrong /without the slow|every sample/

xs = [230, 210, 250, 240, 220, 260, 215, 245, 235]
mean_ms = sum(xs) / len(xs)
