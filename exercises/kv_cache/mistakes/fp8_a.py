# kind: wrong
# about: thinks the weights decide both numbers
# expect answer_fp8_cache: wrong /changes both/

answer_fp8_cache = "A"
