# kind: correct
# about: numpy.diff turned back into a list

import numpy as np

def itl_from_timestamps(times):
    return np.diff(np.array(times, dtype=float)).tolist()
