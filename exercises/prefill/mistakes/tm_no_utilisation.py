# kind: wrong
# about: assumes 100% of the dense peak
# expect ttft_ms: wrong /100% of the peak|40% utilisation too/

ttft_ms = 2 * 8e9 * 2700 / 1979e12 * 1000
