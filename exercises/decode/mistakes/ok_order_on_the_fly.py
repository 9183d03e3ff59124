# kind: correct
# about: call_order_is_sequential checking each call as it happens, then the count

def call_order_is_sequential(next_token, prompt, n):
    state = {"expected": len(prompt), "ok": True, "calls": 0}

    def checking(sequence):
        if len(sequence) != state["expected"]:
            state["ok"] = False
        state["expected"] += 1
        state["calls"] += 1
        return next_token(sequence)

    generate(checking, prompt, n)
    return state["ok"] and state["calls"] == n
