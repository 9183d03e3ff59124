# kind: correct
# about: the going-further answers written with intermediate names and a geometric-series loop

flops_per_param = 2
bytes_per_param = 4 / 8  # 4 bits
intensity_4bit = flops_per_param / bytes_per_param


def ridge_point(peak_flops, bandwidth):
    flops_per_byte = peak_flops / bandwidth
    return flops_per_byte


answer_rate_definitions = "C"  # both, different definitions


def expected_tokens_per_pass(k, a):
    # 1 + a + a^2 + ... + a^k: the large model's token plus each accepted draft
    return sum(a ** i for i in range(k + 1))
