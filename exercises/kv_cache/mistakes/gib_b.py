# kind: wrong
# about: thinks the tool leaves out the weights
# expect answer_gib: wrong /not part of the sequence/

answer_gib = "B"
