# kind: wrong
# about: writes the option's idea in words instead of its letter
# expect answer_prefill_vs_decode: wrong /just the letter|not a letter|instead of (a|the) letter|option's text/

answer_prefill_vs_decode = "decode reads the weights once per token"
