# kind: wrong
# about: uses the sparse headline as the peak
# expect spike_ms: wrong /exactly half/

spike_ms = 2 * 32e9 * 6128 / 3958e12 * 1000
