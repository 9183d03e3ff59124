"""Value and multiple-choice answers: the worked numbers of a 14 GB model on 1 TB/s, and three choices."""

from grader.testing import question

EXPECTED_TOKENS_PER_S = 1000 / 14  # 71.43: a 14 GB read at 1 TB/s takes 14 ms


# Why each wrong option is wrong, keyed by the letters of the solution notebook this was written against. They
# are used only while the solution's letter is still the one named here (so a reordered notebook falls back to
# the general hint instead of explaining the wrong option).
WHY_NOT = {
    "answer_sequential": ("A", {
        "B": "Token 2 is computed by running the model on a sequence that already ends with token 1, so it "
             "cannot be known before token 1 has been chosen.",
    }),
    "answer_prefill_vs_decode": ("C", {
        "A": "Output tokens are no bigger than prompt tokens: each one costs about 2 FLOPs per weight either way.",
        "B": "The same replica does both phases on the same GPUs; the difference is how often the weights are read.",
        "D": "Per token, decode does about the same arithmetic as prefill (about 2 FLOPs per weight). What differs "
             "is memory traffic: decode re-reads all 70 GB of weights for every output token.",
    }),
    "answer_batching_bug": ("B", {
        "A": "That is the common misconception: the 8 streams share one read of the weights, but each step still "
             "gives each stream one token, so no single stream gets faster.",
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
        14,
        meaning="the gigabytes read per decode step (every step reads all of the model's weights once)",
        unit="GB",
        mistakes=[
            ("counting parameters (in billions)", "each parameter takes 2 bytes in 16-bit.", 7),
            ("4 bytes per parameter", "the model is stored in 16-bit, 2 bytes per parameter.", 28),
            ("counting in GiB (2**30 bytes)", "the lesson uses decimal GB, 10**9 bytes.", 14e9 / 2**30),
            ("counting bytes", "the question asks for gigabytes: divide by 10**9.", 14e9),
            ("counting megabytes", "the question asks for gigabytes.", 14e3),
        ],
    )


@question("ms_per_token")
def test_ms_per_token(learner, decode):
    decode.expect_value(
        "ms_per_token",
        learner.value("ms_per_token"),
        14,
        meaning="the milliseconds per decode step (the weights' bytes read at 1 TB/s)",
        unit="ms",
        mistakes=[
            ("bandwidth / bytes, the tokens per second", "the question asks for the time per token.", EXPECTED_TOKENS_PER_S),
            ("the step time in seconds", "the question asks for milliseconds: multiply by 1000.", 0.014),
            ("bandwidth / bytes in tokens per millisecond", "the formula is upside down: time = bytes / bandwidth.", 1 / 14),
            ("the step time in microseconds", "the question asks for milliseconds.", 14e3),
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
            ("the milliseconds per token", "tokens per second is 1000 / ms_per_token.", 14),
            ("the seconds per token", "tokens per second is 1 / seconds_per_token.", 0.014),
            ("tokens per millisecond (1 / ms_per_token)", "multiply by 1000 ms per second.", 1 / 14),
            ("1000 / (the seconds per token)", "mixed units: 1 / seconds or 1000 / milliseconds.", 1000 / 0.014),
        ],
        hint=hint,
    )


@question("answer_prefill_vs_decode")
def test_answer_prefill_vs_decode(learner, reference, decode):
    _check_choice(learner, reference, decode, "answer_prefill_vs_decode")


@question("answer_batching_bug")
def test_answer_batching_bug(learner, reference, decode):
    _check_choice(learner, reference, decode, "answer_batching_bug")
