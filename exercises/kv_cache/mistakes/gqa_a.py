# kind: wrong
# about: thinks every query head stores its own keys and values
# expect answer_gqa: wrong /not 64/

answer_gqa = "A"
