# kind: wrong
# about: thinks continuous batching reads each cache only once
# expect answer_static_batching: wrong /attention needs all/

answer_static_batching = "B"
