# kind: correct
# about: call_order_is_sequential with a recording class instead of a closure

class LengthRecorder:
    def __init__(self, model):
        self.model = model
        self.lengths = []

    def __call__(self, sequence):
        self.lengths.append(len(sequence))
        return self.model(sequence)


def call_order_is_sequential(next_token, prompt, n):
    recorder = LengthRecorder(next_token)
    generate(recorder, prompt, n)
    start = len(prompt)
    return recorder.lengths == [start + i for i in range(n)]
