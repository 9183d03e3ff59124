# kind: wrong
# about: answers the H100's ridge point instead of the prefill's intensity
# expect prompt_intensity: wrong /ridge point/

prompt_intensity = 1979e12 / 3.35e12
