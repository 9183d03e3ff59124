# kind: correct
# about: choice letters in lower case with spaces

answer_double_batch = " c"
answer_static_batching = "a"
answer_bandwidth_gauge = "d "
answer_little = "b"
