# kind: correct
# about: Part 1 typed as plain numbers

prompt_flops = 43200000000000
prompt_intensity = 5400.0
ttft_ms = 54.573
kv_gb = 0.17695
