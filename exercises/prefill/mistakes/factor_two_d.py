# kind: wrong
# about: thinks writing the KV cache adds to the TTFT
# expect answer_factor_two: wrong /do not enter|achieved FLOP/s/

answer_factor_two = "D"
