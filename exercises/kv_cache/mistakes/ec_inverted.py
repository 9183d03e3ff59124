# kind: wrong
# about: divides the other way
# expect even_context: wrong /upside down/

even_context = 131072 / 16e9
