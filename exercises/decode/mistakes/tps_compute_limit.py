# kind: wrong
# about: one stream's rate from the page's 989 TFLOP/s over 2 FLOPs per parameter, not from the bandwidth (blind TA's tps_flops)
# expect max_tokens_per_s: wrong /arithmetic limit|bound by memory/

max_tokens_per_s = 989e12 / (2 * {params_b}e9)
