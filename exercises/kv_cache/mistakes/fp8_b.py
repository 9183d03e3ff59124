# kind: wrong
# about: thinks the even context depends only on the weights
# expect answer_fp8_cache: wrong /bytes per token are in it/

answer_fp8_cache = "B"
