# kind: wrong
# about: counts only the keys
# expect token_bytes: wrong /K or V only|exactly half/

token_bytes = 32 * 8 * 128 * 2
