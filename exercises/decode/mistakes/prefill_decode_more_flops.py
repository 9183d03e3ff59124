# kind: wrong
# about: thinks decode is compute-bound (more FLOPs per token), not memory-bound
# expect answer_prefill_vs_decode: wrong /flops?|arithmetic|compute-bound|memory-bound|bandwidth/

# decode does a lot more maths per token, that is why it is slow
answer_prefill_vs_decode = "D"
