# kind: wrong
# about: gives the gaps in milliseconds, as dashboards do
# expect itl_from_timestamps: wrong /milliseconds/

def itl_from_timestamps(times):
    return [(b - a) * 1000 for a, b in zip(times, times[1:])]
