# kind: wrong
# about: returns the step time itself, forgetting to take its reciprocal
# expect tokens_per_second: wrong /upside down|invert|flipped|seconds per token|returned the step time|time,? not (a )?rate/

def tokens_per_second(param_bytes, bandwidth):
    return decode_step_seconds(param_bytes, bandwidth)
