# kind: wrong
# about: multiplies by the utilisation instead of dividing
# expect ttft_ms: wrong /multiplying by the utilisation|takes longer/

ttft_ms = 2 * 8e9 * 2700 / 1979e12 * 0.4 * 1000
