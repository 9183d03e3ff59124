# kind: wrong
# about: divides bandwidth by bytes: answers tokens per second, not ms per token
# expect ms_per_token: wrong /reciprocal|upside down|invert|flipped|tokens per second|tokens/s/

ms_per_token = 1e12 / 14e9
