# kind: wrong
# about: thinks the cache keeps one entry per layer
# expect answer_longer_prompt: wrong /every position in every layer|grows with the prompt/

answer_longer_prompt = "C"
