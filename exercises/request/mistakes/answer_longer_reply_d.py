# kind: wrong
# about: chooses D
# expect answer_longer_reply: wrong /not the right option/

answer_longer_reply = "D"
