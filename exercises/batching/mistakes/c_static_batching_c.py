# kind: wrong
# about: thinks sequences run one after another
# expect answer_static_batching: wrong /slowest/

answer_static_batching = "C"
