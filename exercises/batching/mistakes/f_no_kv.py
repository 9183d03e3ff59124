# kind: wrong
# about: uses lesson 3's batch_throughput: batch times the weights-only rate
# expect fleet_tokens_per_s: wrong /caches left out/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    per_stream = bandwidth / param_bytes
    return batch * per_stream
