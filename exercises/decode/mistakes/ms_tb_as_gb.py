# kind: wrong
# about: reads 1 TB/s as 1 GB/s (1e9 bytes/s), so 1000 times too slow
# expect ms_per_token: wrong /1000|thousand|TB\/s|GB\/s|1e12|terabyte/

bandwidth = 1e9  # 1 TB/s
ms_per_token = 14e9 / bandwidth * 1000
