# kind: wrong
# about: answers with the word "Yes" (the wrong option, and not a letter)
# expect answer_sequential: wrong /depends on the first|needs the first|first token (must|has to) (be )?(known|chosen|picked)|one (token )?(at a time|after (the )?other|after another)|fed back|autoregressive|cannot (be )?know|can't know|before the first|just the letter|not a letter|a letter,? not|option's text|instead of (a|the) letter/

answer_sequential = "Yes"
