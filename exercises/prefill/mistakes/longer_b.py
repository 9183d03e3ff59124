# kind: wrong
# about: thinks one pass costs the same whatever its length
# expect answer_longer_prompt: wrong /twice the arithmetic|twice the positions/

answer_longer_prompt = "B"
