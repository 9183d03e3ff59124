# kind: wrong
# about: reserve taken after the weights
# expect kv_budget_bytes: wrong /what is left after the weights/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return max(0.0, (memory_bytes - param_bytes) * (1 - reserved_fraction))
