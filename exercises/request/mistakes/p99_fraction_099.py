# kind: wrong
# about: moves 0.99 of the way instead of 0.91
# expect p99_ms: wrong /0\.99 of the way/

p99_ms = 260 + 0.99 * (1900 - 260)
