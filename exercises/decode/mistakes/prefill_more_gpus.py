# kind: wrong
# about: blames the hardware split (more GPUs for prefill) instead of weight reuse
# expect answer_prefill_vs_decode: wrong /gpus?|hardware|same (replica|chips?|devices?|accelerators?)/

answer_prefill_vs_decode = "B"
