# kind: wrong
# about: thinks only the steady 1/ITL rate is a valid tokens/s
# expect answer_rate_definitions: wrong /different (definition|quantit|measure|thing)|defined differently|compare (the|their) definitions|valid/

answer_rate_definitions = "A"
