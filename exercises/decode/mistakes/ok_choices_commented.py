# kind: correct
# about: choice letters written with a trailing comment and double quotes, one per line

answer_sequential = "A"  # token 2 needs token 1 in its input
answer_prefill_vs_decode = "C"
answer_batching_bug = "B"
