# kind: wrong
# about: forgets the 2 FLOPs per parameter
# expect prompt_intensity: wrong /left out|2 bytes per parameter where/

prompt_intensity = {prompt_len} / 1
