# kind: wrong
# about: uses the keys' bytes only
# expect even_context: wrong /twice|factor 2/

even_context = 16e9 / (32 * 8 * 128 * 2)
