# kind: wrong
# about: thinks halving the chunk halves the gap
# expect answer_small_chunks: wrong /does not halve the gap/

answer_small_chunks = "B"
