# kind: wrong
# about: writes the 10% reserve in instead of using reserved_fraction
# expect kv_budget_bytes: wrong /written in as 10%/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    usable = memory_bytes * 0.9  # 10% reserved
    return max(0.0, usable - param_bytes)
