# kind: wrong
# about: earlier minus later
# expect itl_from_timestamps: wrong /wrong sign/

def itl_from_timestamps(times):
    return [times[i] - times[i + 1] for i in range(len(times) - 1)]
