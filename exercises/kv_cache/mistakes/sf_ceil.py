# kind: wrong
# about: rounds up
# expect sequences_fit: wrong /rounded up/

import math

sequences_fit = math.ceil(56e9 / (131072 * 8192))
