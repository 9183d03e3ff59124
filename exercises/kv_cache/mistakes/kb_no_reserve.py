# kind: wrong
# about: no reserve
# expect kv_budget_bytes: wrong /reserve left out/

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    return max(0.0, memory_bytes - param_bytes)
