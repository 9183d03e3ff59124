# kind: wrong
# about: thinks a saturated bandwidth caps the total
# expect answer_double_batch: wrong /always does/

answer_double_batch = "D"
