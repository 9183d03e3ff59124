# kind: wrong
# about: divides by the 4 bits as if they were 4 bytes
# expect intensity_4bit: wrong /bits instead of bytes|4 bytes|factor of 8|8x|eight times/

intensity_4bit = 2 / 4
