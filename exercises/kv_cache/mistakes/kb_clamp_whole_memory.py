# kind: wrong
# about: clamps when the weights exceed the whole memory, not the usable part
# expect kv_budget_bytes: wrong /negative budget/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    if memory_bytes > param_bytes:
        return memory_bytes * (1 - reserved_fraction) - param_bytes
    return 0.0
