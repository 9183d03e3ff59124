# kind: correct
# about: an index loop with append

def itl_from_timestamps(times):
    out = []
    for k in range(1, len(times)):
        out.append(times[k] - times[k - 1])
    return out
