# kind: wrong
# about: thinks a step's time follows its FLOPs
# expect answer_bigger_batch: wrong /not set by its FLOPs/

answer_bigger_batch = "A"
