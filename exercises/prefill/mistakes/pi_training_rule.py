# kind: wrong
# about: counts 6 FLOPs per parameter per token (the training rule) in the intensity
# expect prompt_intensity: wrong /training|forward and backward/

prompt_intensity = 6 * {prompt_len} / 1
