# kind: wrong
# about: divides bytes by FLOPs (bytes per FLOP), upside down
# expect intensity_4bit: wrong /reciprocal|upside down|invert|flipped/

bytes_per_param = 0.5
flops_per_param = 2
intensity_4bit = bytes_per_param / flops_per_param
