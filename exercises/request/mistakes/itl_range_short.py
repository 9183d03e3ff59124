# kind: wrong
# about: range(len(times) - 2) loses the last gap
# expect itl_from_timestamps: wrong /last gap is missing/

def itl_from_timestamps(times):
    gaps = []
    for i in range(len(times) - 2):
        gaps.append(times[i + 1] - times[i])
    return gaps
