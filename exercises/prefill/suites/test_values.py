"""By-hand values (Part 1: an 8e9-parameter FP8 model, 2,700 tokens, one H100 SXM) and the three choices.

The feedback never states a by-hand answer. Each question's known slips are far apart (more than 0.2%: a test
of the lesson checks it), so the one within 0.2% of the learner's number is named; two slips that give the same
number are named together, in one sentence.
"""

from grader.testing import question

N, L = 8e9, 2700
DENSE_FP8 = 3958e12 / 2  # the H100 SXM datasheet's FP8 figure is with sparsity
FLOPS = 2 * N * L
TTFT_MS = FLOPS / (DENSE_FP8 * 0.4) * 1e3
KV_GB = 2 * 32 * 8 * 128 * 1 * L / 1e9

KNOWN = {
    "prompt_flops": [
        ("1 FLOP per parameter per token: a weight costs a multiply and an add, 2 FLOPs", N * L),
        ("the FLOPs of one token: every one of the 2,700 prompt tokens costs that much", 2 * N),
        ("the training rule, 6 FLOPs per parameter per token (forward and backward): prefill is a forward "
         "pass, 2", 6 * N * L),
        ("the FLOPs in TFLOP (divided by 1e12): give the FLOPs themselves", FLOPS / 1e12),
        ("the parameters counted in billions (8, not 8e9), or the FLOPs in GFLOP: give the FLOPs themselves",
         FLOPS / 1e9),
    ],
    "prompt_intensity": [
        ("what two slips give: the 2 FLOPs per parameter left out, or 2 bytes per parameter where FP8 is 1; it is 2 "
         "FLOPs per parameter per token over 1 byte", L),
        ("the weights counted in bits (8 per FP8 value): FP8 is 1 byte per parameter", 2 * L / 8),
        ("one token's intensity (a decode step): prefill uses each weight it reads for all 2,700 tokens", 2.0),
        ("the FLOPs over the weights counted in GB (8), not in bytes (8e9)", FLOPS / 8),
        ("the H100's ridge point: the question asks for the prefill's own FLOPs per byte", DENSE_FP8 / 3.35e12),
        ("the ridge point of the sparse headline: the question asks for the prefill's own FLOPs per byte",
         2 * DENSE_FP8 / 3.35e12),
    ],
    "ttft_ms": [
        ("exactly half, what two slips give: the 3,958 teraFLOPS used as is (it is with sparsity; dense FP8 is half of it), "
         "or the 2 FLOPs per parameter left out", TTFT_MS / 2),
        ("the time at 100% of the peak: divide by the 40% utilisation too", TTFT_MS * 0.4),
        ("multiplying by the utilisation: a pass that achieves 40% of the peak takes longer, so divide by 0.4",
         TTFT_MS * 0.4 * 0.4),
        ("the time in seconds: the question asks for milliseconds (x 1000)", TTFT_MS / 1e3),
        ("the sparse headline at 100% of it: halve 3,958 teraFLOPS and divide by the 40% utilisation",
         TTFT_MS / 2 * 0.4),
        ("exactly twice, what two slips give: the peak halved twice (3,958 with sparsity is 1,979 dense), or the BF16 rate "
         "where the model runs in FP8", TTFT_MS * 2),
        ("the time to read the weights once (8e9 bytes at 3.35 TB/s): this prefill is compute-bound, so the "
         "arithmetic sets its time", N / 3.35e12 * 1e3),
    ],
    "kv_gb": [
        ("K or V only: every layer stores a key and a value vector, the factor 2", KV_GB / 2),
        ("exactly twice, what two slips give: 2 bytes per value (BF16) where the cache is FP8, or the factor 2 counted "
         "twice", KV_GB * 2),
        ("what the 32 query heads give: only the 8 KV heads are stored", KV_GB * 4),
        ("one layer only: each of the 32 layers stores its own keys and values", KV_GB / 32),
        ("one position only: prefill writes the cache for all 2,700 positions", KV_GB / L),
        ("the answer in GiB (2^30 bytes): the course uses GB, 1e9 bytes", KV_GB * 1e9 / 2**30),
        ("the answer in bits: FP8 is 1 byte per value", KV_GB * 8),
        ("the answer in bytes: divide by 1e9 for GB", KV_GB * 1e9),
        ("the answer in MB: divide by 1e3 more for GB", KV_GB * 1e3),
        ("what the worked example's 80 layers (Llama-3-70B's) give: this model has 32", KV_GB * 80 / 32),
    ],
}

VALUES = {
    "prompt_flops": (FLOPS, 1e-6, "the FLOPs of the prefill", "2 FLOPs per parameter for each prompt token."),
    "prompt_intensity": (
        2 * L / 1, 1e-6, "the FLOPs per byte of weights read", "2 FLOPs per parameter per token, over the bytes per parameter."
    ),
    "ttft_ms": (
        TTFT_MS, 2e-3, "the time to first token in milliseconds",
        "The FLOPs over the FLOP/s achieved: the dense FP8 peak times the utilisation, then x 1000 for ms.",
    ),
    "kv_gb": (
        KV_GB, 2e-3, "the GB of KV cache written",
        "2 x layers x KV heads x head dimension x bytes per value x positions, then / 1e9 for GB.",
    ),
}


def _value(learner, prefill, name):
    expected, rel, meaning, advice = VALUES[name]
    prefill.expect_value(name, learner.value(name), expected, meaning=meaning, known=KNOWN[name], rel=rel, advice=advice)


@question("prompt_flops")
def test_prompt_flops(learner, prefill):
    _value(learner, prefill, "prompt_flops")


@question("prompt_intensity")
def test_prompt_intensity(learner, prefill):
    _value(learner, prefill, "prompt_intensity")


@question("ttft_ms")
def test_ttft_ms(learner, prefill):
    _value(learner, prefill, "ttft_ms")


@question("kv_gb")
def test_kv_gb(learner, prefill):
    _value(learner, prefill, "kv_gb")


# -- choices -------------------------------------------------------------------------------------------------------

#: Why each wrong option is wrong, keyed by the letter of the solution this was written against (used only while
#: the solution still gives that letter, so a reordered notebook falls back to the general hint).
WHY_NOT = {
    "answer_one_token": ("B", {
        "A": "One pass is not always limited by arithmetic: what matters is how many FLOPs each byte read feeds. "
             "A single token uses each weight once, 2 FLOPs per weight.",
        "C": "8,000 FLOPs per byte is the 4,000-token prompt's intensity; a one-token prompt uses each weight for "
             "one token only.",
        "D": "A new prompt's keys and values are not in the cache yet: prefill computes and writes them, and "
             "that is 2 FLOPs per weight for the token.",
    }),
    "answer_factor_two": ("A", {
        "B": "A GiB is 2^30 / 10^9 = 1.074 GB: that changes a result by about 7%, not by a factor of 2.",
        "C": "Attention's term is a few percent at 4,000 tokens (about 3.7% here), not a doubling.",
        "D": "Counting K and V is right, and the KV bytes written do not enter the TTFT formula, FLOPs over "
             "achieved FLOP/s.",
    }),
    "answer_longer_prompt": ("D", {
        "A": "Reading the weights once is not what sets a compute-bound prefill's time: its FLOPs, 2·N·L, are, "
             "and they double with L.",
        "B": "One pass over twice the tokens does twice the arithmetic and stores twice the positions.",
        "C": "The cache keeps a key and a value for every position in every layer, so it grows with the prompt.",
    }),
}

GENERAL = {
    "answer_one_token": "Work out the intensity 2L / b for L = 1 and compare it with the ridge point.",
    "answer_factor_two": "Which of these changes the FLOPs or the FLOP/s by exactly 2?",
    "answer_longer_prompt": "Both the FLOPs (2·N·L) and the KV bytes have L as a factor.",
}


def _choice(learner, reference, prefill, name):
    prefill.expect_choice(name, learner.value(name), getattr(reference, name), GENERAL[name], WHY_NOT[name])


@question("answer_one_token")
def test_answer_one_token(learner, reference, prefill):
    _choice(learner, reference, prefill, "answer_one_token")


@question("answer_factor_two")
def test_answer_factor_two(learner, reference, prefill):
    _choice(learner, reference, prefill, "answer_factor_two")


@question("answer_longer_prompt")
def test_answer_longer_prompt(learner, reference, prefill):
    _choice(learner, reference, prefill, "answer_longer_prompt")
