# kind: wrong
# about: divides {n_out} - 1 tokens by T
# expect request_tokens_per_s: wrong /n_out - 1 tokens|all n_out/

request_tokens_per_s = ({n_out} - 1) / ({ttft_s} + ({n_out} - 1) * {itl_ms} / 1000)
