# kind: correct
# about: every number function in another style (a loop, max, a helper kept)

def decode_step_seconds(param_bytes, bandwidth):
    seconds = param_bytes / bandwidth
    return seconds

def tokens_per_second(param_bytes, bandwidth):
    return bandwidth / param_bytes

def decode_time(n_tokens, param_bytes, bandwidth):
    total = 0.0
    for _ in range(n_tokens):
        total += decode_step_seconds(param_bytes, bandwidth)
    return total

def request_time(ttft, itl, n_out):
    return ttft + max(n_out - 1, 0) * itl

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = 1 / decode_step_seconds(param_bytes, bandwidth)
    return batch * per_stream, per_stream

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    contexts = sum(prompt_len + k for k in range(n_tokens))
    return (n_tokens * param_bytes + kv_bytes_per_token * contexts) / bandwidth
