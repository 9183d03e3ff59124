# kind: correct
# about: numpy.percentile with its default method

import numpy as np

def percentile(samples, p):
    return float(np.percentile(samples, p))
