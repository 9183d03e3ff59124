# kind: wrong
# about: thinks a faster read halves the even context
# expect answer_fp8_cache: wrong /twice the positions/

answer_fp8_cache = "C"
