# kind: wrong
# about: interpolates between the 9th and 10th values of the unsorted list
# expect p99_ms: wrong /not sorted/

p99_ms = 245 + 0.91 * (235 - 245)
