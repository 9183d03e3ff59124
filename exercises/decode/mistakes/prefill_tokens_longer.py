# kind: wrong
# about: believes output tokens are bigger or harder than prompt tokens
# expect answer_prefill_vs_decode: wrong /longer|bigger|larger|same size|(same|equal) (work|cost|arithmetic)|either way/

answer_prefill_vs_decode = "A"  # generated text must be harder to make
