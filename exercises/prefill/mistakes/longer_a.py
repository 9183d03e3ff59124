# kind: wrong
# about: thinks TTFT is set by reading the weights once
# expect answer_longer_prompt: wrong /Reading the weights once|double with L/

answer_longer_prompt = "A"
