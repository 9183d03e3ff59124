# kind: wrong
# about: one FLOP per weight per sequence
# expect decode_intensity: wrong /1 FLOP per parameter|multiply and an add/

def decode_intensity(batch, bytes_per_param):
    return batch / bytes_per_param
