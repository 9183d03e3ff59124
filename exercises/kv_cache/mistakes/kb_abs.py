# kind: wrong
# about: returns the size of the shortfall when the weights do not fit
# expect kv_budget_bytes: wrong /can't tell/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return abs(memory_bytes * (1 - reserved_fraction) - param_bytes)
