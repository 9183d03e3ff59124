# kind: correct
# about: usable memory with an if for the floor

def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    usable = memory_bytes - memory_bytes * reserved_fraction
    left = usable - param_bytes
    if left < 0:
        return 0.0
    return left
