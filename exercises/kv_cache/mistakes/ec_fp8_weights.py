# kind: wrong
# about: takes the weights as 8 GB
# expect even_context: wrong /half|1 byte per parameter/

even_context = 8e9 / 131072
