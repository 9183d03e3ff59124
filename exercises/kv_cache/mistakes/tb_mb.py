# kind: wrong
# about: gives the answer in MB
# expect token_bytes: wrong /MB/

token_bytes = 0.131072  # MB
