# kind: wrong
# about: divides the KV budget instead of the weights
# expect even_context: wrong /whole budget|weight bytes/

even_context = 56e9 / 131072
