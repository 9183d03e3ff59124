# kind: wrong
# about: rounds 97.27 up
# expect max_batch: wrong /one too many/

max_batch = 98
