# kind: wrong
# about: thinks a user's speed is their share of the bandwidth
# expect answer_bandwidth_gauge: wrong /not a share/

answer_bandwidth_gauge = "A"
