# kind: wrong
# about: chooses B
# expect answer_longer_reply: wrong /not the right option/

answer_longer_reply = "B"
