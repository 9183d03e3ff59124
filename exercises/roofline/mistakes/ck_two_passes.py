# kind: wrong
# about: a decode step and the chunk as two passes
# expect chunk_ms: wrong /two passes/

decode = max(2 * {params_b}e9 * {batch} / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12)
chunk = max(2 * {params_b}e9 * {chunk} / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12)
chunk_ms = (decode + chunk) * 1000
