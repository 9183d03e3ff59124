# kind: correct
# about: choice letters in lower case with spaces

answer_gqa = " b"
answer_gib = "c "
answer_fp8_cache = "d"
