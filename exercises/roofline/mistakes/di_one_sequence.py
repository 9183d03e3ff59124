# kind: wrong
# about: the intensity of a single sequence, whatever the batch
# expect decode_intensity: wrong /one sequence's intensity|every sequence of the batch/

def decode_intensity(batch, bytes_per_param):
    return 2 / bytes_per_param  # decode does 2 FLOPs per weight
