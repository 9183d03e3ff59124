# kind: wrong
# about: averages the two middle values of the list as given
# expect p50_ms: wrong /not sorted/

p50_ms = (240 + 220) / 2
