# kind: wrong
# about: the whole chunked prefill, every chunk's iteration added up, instead of one iteration's gap (blind TA's chunk_total)
# expect chunk_ms: wrong /every chunk's iteration|one iteration's/

chunk_ms = -(-{prompt_len} // {chunk}) * 2 * {params_b}e9 * ({batch} + {chunk}) / ({sparse_tflops}e12 / 2) * 1000
