# kind: wrong
# about: counts 1 FLOP per parameter per token in the chunked pass
# expect chunk_ms: wrong /1 FLOP per parameter/

tokens = {batch} + {chunk}
chunk_ms = max({params_b}e9 * tokens / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12) * 1000
