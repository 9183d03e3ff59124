"""Value and multiple-choice answers: Part 1's model worked by hand, and three choices.

Part 1 is not the page's worked example (7e9 parameters x 2 bytes at 1 TB/s: 14 GB, 14 ms, 71.4 tokens/s, all
on the page): it is a 13e9-parameter model in FP8 (1 byte per parameter) on an NVIDIA H100 SXM, 3.35 TB/s, so
no answer can be copied from the text. The worked example's numbers are among the known mistakes.
"""

from grader.testing import question

PARAMS, BYTES_PER_PARAM, BANDWIDTH = 13e9, 1, 3.35e12  # Part 1's model, as the notebook states it
EXPECTED_GB = PARAMS * BYTES_PER_PARAM / 1e9  # 13 GB
EXPECTED_MS = PARAMS * BYTES_PER_PARAM / BANDWIDTH * 1e3  # 3.88 ms
EXPECTED_TOKENS_PER_S = 1e3 / EXPECTED_MS  # 257.7 tokens/s
WORKED = (14, 14, 1000 / 14)  # the page's worked example: GB, ms, tokens/s


# Why each wrong option is wrong, keyed by the letters of the solution notebook this was written against. They
# are used only while the solution's letter is still the one named here (so a reordered notebook falls back to
# the general hint instead of explaining the wrong option).
WHY_NOT = {
    "answer_sequential": ("A", {
        "B": "Prefill can score the prompt's positions at once because they are all known; token 2 is computed by "
             "running the model on a sequence that already ends with token 1, so it cannot be known before token 1 "
             "has been chosen.",
    }),
    "answer_prefill_vs_decode": ("C", {
        "A": "Every token, read or written, goes through the same layers: about 2 FLOPs per weight either way.",
        "B": "The same replica does both phases on the same GPUs; the difference is how often the weights are read.",
        "D": "Per token, decode does about the same arithmetic as prefill (about 2 FLOPs per weight; attention adds "
             "little at these lengths). What differs is memory traffic: decode re-reads all 70 GB of weights for "
             "every output token.",
    }),
    "answer_batching_bug": ("B", {
        "A": "That is the common misconception: the 8 streams share one read of the weights, but a batched step is "
             "not shorter, and it still gives each stream one token, so no single stream gets faster.",
        "C": "Each sequence has its own KV cache, and a batched step is not shorter: it still reads all the weights.",
    }),
}

GENERAL = {
    "answer_sequential": "Revisit why decoding is sequential: each step's input is the whole sequence so far, "
    "including the token the previous step just produced.",
    "answer_prefill_vs_decode": "Count how many times the weights are read to process the 4,000 prompt tokens, "
    "and how many times to write 4,000 output tokens.",
    "answer_batching_bug": "In one batched step, how many new tokens does each sequence get, and what do the 8 "
    "sequences share?",
}


def _check_choice(learner, reference, decode, name):
    correct = getattr(reference, name)
    value = learner.value(name)
    hint = GENERAL[name]
    written_for, why_not = WHY_NOT[name]
    if isinstance(correct, str) and correct.strip().upper() == written_for and isinstance(value, str):
        hint = why_not.get(value.strip().upper(), hint)
    decode.expect_choice(name, value, correct, hint, options=sorted({written_for, *why_not}))


@question("answer_sequential")
def test_answer_sequential(learner, reference, decode):
    _check_choice(learner, reference, decode, "answer_sequential")


@question("gb_per_step")
def test_gb_per_step(learner, decode):
    decode.expect_value(
        "gb_per_step",
        learner.value("gb_per_step"),
        EXPECTED_GB,
        meaning="the gigabytes read per decode step (every step reads all of the model's weights once)",
        unit="GB",
        mistakes=[
            ("2 bytes per parameter", "this model is stored in FP8, 1 byte per parameter (the worked example's is BF16).",
             2 * EXPECTED_GB),
            ("the worked example's model", "Part 1 is about another model: 13e9 parameters in FP8.", WORKED[0]),
            ("counting in GiB (2**30 bytes)", "the lesson uses decimal GB, 10**9 bytes.", EXPECTED_GB * 1e9 / 2**30),
            ("counting bytes", "the question asks for gigabytes: divide by 10**9.", EXPECTED_GB * 1e9),
            ("counting megabytes", "the question asks for gigabytes.", EXPECTED_GB * 1e3),
        ],
    )


@question("ms_per_token")
def test_ms_per_token(learner, decode):
    decode.expect_value(
        "ms_per_token",
        learner.value("ms_per_token"),
        EXPECTED_MS,
        meaning="the milliseconds per decode step (the weights' bytes read at 3.35 TB/s), to 2 decimal places",
        unit="ms",
        abs_tol=0.005,
        mistakes=[
            ("bandwidth / bytes, the tokens per second", "the question asks for the time per token.", EXPECTED_TOKENS_PER_S),
            ("the step time in seconds", "the question asks for milliseconds: multiply by 1000.", EXPECTED_MS / 1e3),
            ("bandwidth / bytes in tokens per millisecond", "the formula is upside down: time = bytes / bandwidth.",
             1 / EXPECTED_MS),
            ("the step time in microseconds", "the question asks for milliseconds.", EXPECTED_MS * 1e3),
            ("the worked example's 1 TB/s", "this accelerator, an H100 SXM, reads 3.35 TB/s.", PARAMS * BYTES_PER_PARAM / 1e9),
            ("2 bytes per parameter", "this model is stored in FP8, 1 byte per parameter.", 2 * EXPECTED_MS),
            ("the worked example's model", "Part 1 is about another model and accelerator.", WORKED[1]),
        ],
    )


@question("max_tokens_per_s")
def test_max_tokens_per_s(learner, decode):
    value = learner.value("max_tokens_per_s")
    hint = ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - EXPECTED_TOKENS_PER_S) < 1:
        whole = float(value).is_integer()
        hint = (
            "Close, but not precise enough: keep at least one correct decimal place"
            + (" (rounding to a whole number loses it)" if whole else "")
            + ", or store the computed value itself."
        )
    decode.expect_value(
        "max_tokens_per_s",
        value,
        EXPECTED_TOKENS_PER_S,
        meaning="the decode steps per second of one stream (1000 ms divided by the milliseconds per step)",
        unit="tokens/s",
        abs_tol=0.05,
        mistakes=[
            ("the milliseconds per token", "tokens per second is 1000 / ms_per_token.", EXPECTED_MS),
            ("the seconds per token", "tokens per second is 1 / seconds_per_token.", EXPECTED_MS / 1e3),
            ("tokens per millisecond (1 / ms_per_token)", "multiply by 1000 ms per second.", 1 / EXPECTED_MS),
            ("1000 / (the seconds per token)", "mixed units: 1 / seconds or 1000 / milliseconds.", 1e6 / EXPECTED_MS),
            ("2 bytes per parameter", "this model is stored in FP8, 1 byte per parameter.", EXPECTED_TOKENS_PER_S / 2),
            ("the worked example's rate", "Part 1 is about another model and accelerator.", WORKED[2]),
        ],
        hint=hint,
    )


@question("answer_prefill_vs_decode")
def test_answer_prefill_vs_decode(learner, reference, decode):
    _check_choice(learner, reference, decode, "answer_prefill_vs_decode")


@question("answer_batching_bug")
def test_answer_batching_bug(learner, reference, decode):
    _check_choice(learner, reference, decode, "answer_batching_bug")
