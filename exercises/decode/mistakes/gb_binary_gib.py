# kind: wrong
# about: divides by 2**30 (GiB) although the lesson's units are decimal
# expect gb_per_step: wrong /GiB|1024|2\s*\*\*\s*30|binary|decimal/

gb_per_step = {params_b}e9 * {bytes_per_param} / 1024**3
