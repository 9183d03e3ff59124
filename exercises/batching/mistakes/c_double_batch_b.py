# kind: wrong
# about: thinks the bandwidth is shared out per user
# expect answer_double_batch: wrong /not shared out per user/

answer_double_batch = "B"
