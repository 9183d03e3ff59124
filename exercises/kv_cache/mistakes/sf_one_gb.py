# kind: wrong
# about: takes one 8,192-token sequence as 1 GB (it is 1 GiB)
# expect sequences_fit: wrong /1 GiB|1\.074/

sequences_fit = 56  # 1 GB each
