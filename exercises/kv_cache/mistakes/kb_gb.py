# kind: wrong
# about: returns GB
# expect kv_budget_bytes: wrong /GB|10\^9|1e9/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return max(0.0, memory_bytes * (1 - reserved_fraction) - param_bytes) / 1e9
