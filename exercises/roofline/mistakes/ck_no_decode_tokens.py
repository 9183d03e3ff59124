# kind: wrong
# about: leaves the decode tokens out of the chunked pass
# expect chunk_ms: wrong /left out of the pass/

chunk_ms = max(2 * {params_b}e9 * {chunk} / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12) * 1000
