# kind: wrong
# about: thinks a request holds the replica for one step
# expect answer_little: wrong /whole reply/

answer_little = "C"
