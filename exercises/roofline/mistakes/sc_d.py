# kind: wrong
# about: thinks a memory-bound pass is slower than a compute-bound one
# expect answer_small_chunks: wrong /shorter than a compute-bound pass/

answer_small_chunks = "D"
