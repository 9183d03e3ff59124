# kind: wrong
# about: gives the decode intensity 2 / b, ignoring the prompt
# expect prompt_intensity: wrong /one token|decode step/

prompt_intensity = 2 / 1
