# kind: wrong
# about: gives the step in seconds
# expect step_ms: wrong /time in seconds/

step_ms = (8e9 + 16 * 2000 * 2 * 32 * 8 * 128 * 2) / 3.35e12
