# kind: wrong
# about: adds 32 ms as 32 to 0.6 s
# expect latency_s: wrong /used in milliseconds/

latency_s = 0.6 + 59 * 32
