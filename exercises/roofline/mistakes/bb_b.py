# kind: wrong
# about: thinks sharing the weight read makes it shorter
# expect answer_bigger_batch: wrong /does not make the read shorter/

answer_bigger_batch = "B"
