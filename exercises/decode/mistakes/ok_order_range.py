# kind: correct
# about: call_order_is_sequential with list(range(...)) and a named expected list

def call_order_is_sequential(next_token, prompt, n):
    recorded = []

    def spy(seq):
        recorded.append(len(seq))
        token = next_token(seq)
        return token

    generate(spy, prompt, n)
    expected = list(range(len(prompt), len(prompt) + n))
    if recorded != expected:
        return False
    return True
