# kind: wrong
# about: subtracts the first time from every later time
# expect itl_from_timestamps: wrong /since the first token/

def itl_from_timestamps(times):
    return [t - times[0] for t in times[1:]]
