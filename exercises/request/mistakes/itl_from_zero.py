# kind: wrong
# about: measures the first gap from 0 (TTFT counted as a gap)
# expect itl_from_timestamps: wrong /TTFT was counted as a gap/

def itl_from_timestamps(times):
    gaps = []
    previous = 0.0
    for t in times:
        gaps.append(t - previous)
        previous = t
    return gaps
