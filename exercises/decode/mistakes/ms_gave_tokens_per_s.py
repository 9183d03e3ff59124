# kind: wrong
# about: divides bandwidth by bytes: answers tokens per second, not ms per token
# expect ms_per_token: wrong /reciprocal|upside down|invert|flipped|tokens per second|tokens/s/

ms_per_token = {tb_per_s}e12 / ({params_b}e9 * {bytes_per_param})
