# kind: wrong
# about: forgets the weights
# expect kv_budget_bytes: wrong /weights left out/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return memory_bytes * (1 - reserved_fraction)
