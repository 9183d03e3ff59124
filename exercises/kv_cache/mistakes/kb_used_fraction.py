# kind: wrong
# about: reads the reserved fraction as the usable one
# expect kv_budget_bytes: wrong /fraction in use|kept back/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    usable = memory_bytes * reserved_fraction
    return max(0.0, usable - param_bytes)
