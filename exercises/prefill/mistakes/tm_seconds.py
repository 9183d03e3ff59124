# kind: wrong
# about: gives seconds, not milliseconds
# expect ttft_ms: wrong /time in seconds|1,000/

ttft_ms = 2 * 8e9 * 2700 / (1979e12 * 0.4)
