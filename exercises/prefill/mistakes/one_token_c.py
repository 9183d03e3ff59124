# kind: wrong
# about: reuses the 4,000-token prompt's intensity for a one-token prompt
# expect answer_one_token: wrong /4,000-token prompt's intensity|one token only/

answer_one_token = "C"  # 8,000 > 412
