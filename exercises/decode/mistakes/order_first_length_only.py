# kind: wrong
# about: checks only that the first call saw the prompt's length
# expect call_order_is_sequential: wrong /first|whole list|every (length|call)|all (the )?(recorded )?lengths|only (checks|compares)|later calls/

def call_order_is_sequential(next_token, prompt, n):
    seen = []

    def wrapper(seq):
        seen.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    if not seen:
        return n == 0
    return seen[0] == len(prompt)
