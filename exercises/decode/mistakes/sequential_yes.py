# kind: wrong
# about: thinks the model can look ahead and pick the second token before the first
# expect answer_sequential: wrong /depends on|needs? the first|one (token )?(at a time|after (the )?other|after another)|autoregressive|sequential|fed back|input/

# the model sees the whole prompt at once, so surely it can plan ahead?
answer_sequential = "B"
