# kind: wrong
# about: returns numpy.diff's array
# expect itl_from_timestamps: wrong /numpy|plain Python/

import numpy as np

def itl_from_timestamps(times):
    return np.diff(times)
