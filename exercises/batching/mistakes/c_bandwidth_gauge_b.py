# kind: wrong
# about: thinks one user cannot keep the memory busy
# expect answer_bandwidth_gauge: wrong /all 70 GB/

answer_bandwidth_gauge = "B"
