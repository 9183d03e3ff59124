# kind: wrong
# about: divides 16 GB as 16
# expect even_context: wrong /in GB|16e9/

even_context = 16 / 131072
