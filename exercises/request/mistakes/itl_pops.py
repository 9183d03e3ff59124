# kind: wrong
# about: pops the first time off the caller's list while walking it
# expect itl_from_timestamps: wrong /changed the caller.*a copy, list\(times\),/

def itl_from_timestamps(times):
    gaps = []
    previous = times.pop(0)
    while times:
        current = times.pop(0)
        gaps.append(current - previous)
        previous = current
    return gaps
