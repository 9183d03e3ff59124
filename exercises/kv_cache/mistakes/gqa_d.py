# kind: wrong
# about: thinks GQA stores only the keys
# expect answer_gqa: wrong /does not drop the values|factor 2/

answer_gqa = "d"
