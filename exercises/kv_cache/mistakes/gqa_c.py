# kind: wrong
# about: confuses GQA with multi-query attention
# expect answer_gqa: wrong /multi-query/

answer_gqa = "C"
