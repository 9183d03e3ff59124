# kind: wrong
# about: believes output tokens are bigger or harder than prompt tokens
# expect answer_prefill_vs_decode: wrong /longer|same (size|kind|work)|length|tokens are (all )?alike|every token|more work per token/

answer_prefill_vs_decode = "A"  # generated text must be harder to make
