# kind: wrong
# about: thinks the 8 users share one KV cache, so steps should get shorter
# expect answer_batching_bug: wrong /kv cache|own cache|its own|share|weights/

answer_batching_bug = "C"
