# kind: wrong
# about: adds the arithmetic to the memory time
# expect answer_bigger_batch: wrong /not their sum/

answer_bigger_batch = "D"
