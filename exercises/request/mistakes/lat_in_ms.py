# kind: wrong
# about: gives the latency in milliseconds
# expect latency_s: wrong /milliseconds instead of seconds|1,000/

latency_s = 600 + 59 * 32  # ms
