# kind: wrong
# about: thinks the 8 users share one KV cache, so steps should get shorter
# expect answer_batching_bug: wrong /(own|separate) kv cache|kv caches? (are|is) not shared|(does not|doesn't|don't|do not) share|each (sequence|user|stream) has its own/

answer_batching_bug = "C"
