# kind: wrong
# about: chooses C
# expect answer_longer_reply: wrong /not the right option/

answer_longer_reply = "C"
