# kind: wrong
# about: copies the worked example's bytes per token (Llama-3-70B's)
# expect token_bytes: wrong /worked example/

token_bytes = 327680
