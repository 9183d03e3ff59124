# kind: wrong
# about: divides by the KV heads again
# expect answer_gib: wrong /already in/

answer_gib = "D"
