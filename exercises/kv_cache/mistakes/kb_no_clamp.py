# kind: wrong
# about: returns a negative budget when the weights do not fit
# expect kv_budget_bytes: wrong /negative budget/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return memory_bytes * (1 - reserved_fraction) - param_bytes
