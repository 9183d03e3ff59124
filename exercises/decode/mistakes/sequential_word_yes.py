# kind: wrong
# about: answers with the word "Yes" (the wrong option, and not a letter)
# expect answer_sequential: wrong /depends on|needs? the first|one (token )?(at a time|after (the )?other|after another)|autoregressive|sequential|fed back|input|letter/

answer_sequential = "Yes"
