# kind: wrong
# about: thinks every single pass is limited by arithmetic
# expect answer_one_token: wrong /not always limited|each byte read feeds/

answer_one_token = "A"
