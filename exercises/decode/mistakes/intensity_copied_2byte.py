# kind: wrong
# about: copies the lesson's 1 FLOP per byte for 2-byte weights, ignoring the 4-bit precision
# expect intensity_4bit: wrong /2-byte|two bytes|16-bit|bf16|fp16|precision/

intensity_4bit = 1  # same as in the text
