# kind: wrong
# about: returns the average gap (TPOT) instead of the list
# expect itl_from_timestamps: wrong /average gap|TPOT/

def itl_from_timestamps(times):
    if len(times) < 2:
        return 0.0
    return (times[-1] - times[0]) / (len(times) - 1)
