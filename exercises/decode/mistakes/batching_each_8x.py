# kind: wrong
# about: expects batching to make every single stream 8 times faster
# expect answer_batching_bug: wrong /one token per step|each (stream|sequence|user)|per.?(stream|user)|(not|no) faster|8 times|total|aggregate/

answer_batching_bug = "A"
