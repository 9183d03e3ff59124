# kind: wrong
# about: gives bytes
# expect budget_gb: wrong /in bytes: divide/

budget_gb = 80e9 * 0.9 - 16e9
