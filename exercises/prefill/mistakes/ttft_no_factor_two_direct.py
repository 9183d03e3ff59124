# kind: wrong
# about: the prefill FLOPs without the factor 2, the TTFT written out directly with prompt_flops right (blind TA's ttft_no_2): the same TTFT as the sparse headline used as is, so both readings are said
# expect ttft_ms: wrong /two slips give.*used as is.*2 FLOPs per parameter left out/

ttft_ms = {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2 * 0.4) * 1000
