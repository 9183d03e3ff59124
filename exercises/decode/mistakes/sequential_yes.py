# kind: wrong
# about: thinks the model can look ahead and pick the second token before the first
# expect answer_sequential: wrong /depends on the first|needs the first|first token (must|has to) (be )?(known|chosen|picked)|one (token )?(at a time|after (the )?other|after another)|fed back|autoregressive|cannot (be )?know|can't know|before the first/

# the model sees the whole prompt at once, so surely it can plan ahead?
answer_sequential = "B"
