# kind: wrong
# about: forgets to divide by 10
# expect mean_ms: wrong /that is the sum/

mean_ms = 230 + 210 + 250 + 1900 + 240 + 220 + 260 + 215 + 245 + 235
