# kind: wrong
# about: rounds every gap to 2 decimals, so gaps of a few milliseconds come out as 0
# expect itl_from_timestamps: wrong /round/

def itl_from_timestamps(times):
    return [round(b - a, 2) for a, b in zip(times, times[1:])]
