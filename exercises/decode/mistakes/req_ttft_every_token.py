# kind: wrong
# about: pays the ttft for every token (ttft + itl per token)
# expect request_time: wrong /ttft (is paid |only )?once|every token|each token|once per (request|token)/

def request_time(ttft, itl, n_out):
    per_token = ttft + itl
    return n_out * per_token - itl
