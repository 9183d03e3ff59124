# kind: wrong
# about: thinks 64 users make the replica compute-bound
# expect answer_bandwidth_gauge: wrong /58 FLOPs|still memory-bound/

answer_bandwidth_gauge = "C"
