# kind: wrong
# about: thinks the step time does not depend on the batch
# expect answer_double_batch: wrong /64 caches|each sequence's KV cache is read too/

answer_double_batch = "A"
