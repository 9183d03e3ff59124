# kind: wrong
# about: thinks only the whole-request rate is valid
# expect answer_rate_definitions: wrong /different (definition|quantit|measure|thing)|defined differently|compare (the|their) definitions|valid/

answer_rate_definitions = "B"
