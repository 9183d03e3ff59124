# kind: wrong
# about: returns 0 when nothing is reserved
# expect kv_budget_bytes: wrong /guard|returns 0/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    if not reserved_fraction:
        return 0.0
    return max(0.0, memory_bytes * (1 - reserved_fraction) - param_bytes)
