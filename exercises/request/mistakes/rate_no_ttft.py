# kind: wrong
# about: leaves the TTFT out of the time
# expect request_tokens_per_s: wrong /TTFT is left out/

request_tokens_per_s = 60 / (59 * 0.032)
