# kind: wrong
# about: thinks the chunk's tokens are what memory reads
# expect answer_small_chunks: wrong /not what is read from memory/

answer_small_chunks = "C"
