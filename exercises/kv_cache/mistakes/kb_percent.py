# kind: wrong
# about: divides the fraction by 100
# expect kv_budget_bytes: wrong /percentage/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return max(0.0, memory_bytes * (1 - reserved_fraction / 100) - param_bytes)
