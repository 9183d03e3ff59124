# kind: wrong
# about: thinks static batching recomputes prompts
# expect answer_static_batching: wrong /prefilled once/

answer_static_batching = "D"
