"""Value and multiple-choice answers: the worked numbers of a 14 GB model on 1 TB/s, and three choices."""

from grader.testing import question

EXPECTED_TOKENS_PER_S = 1000 / 14  # 71.43: a 14 GB read at 1 TB/s takes 14 ms


@question("answer_sequential")
def test_answer_sequential(learner, reference, decode):
    decode.expect_choice(
        "answer_sequential",
        learner.value("answer_sequential"),
        reference.answer_sequential,
        "Revisit why decoding is sequential: each step's input is the whole sequence so far, including the token "
        "the previous step just produced, so step k + 1 cannot start before step k has finished.",
    )


@question("gb_per_step")
def test_gb_per_step(learner, decode):
    decode.expect_value(
        "gb_per_step",
        learner.value("gb_per_step"),
        14,
        meaning="gigabytes read per decode step: every step reads all of the model's weights once",
        wrong={
            "counting parameters (in billions) instead of bytes: each parameter takes 2 bytes in 16-bit": 7,
            "4 bytes per parameter: the model is stored in 16-bit, 2 bytes per parameter": 28,
            "counting in gibibytes (2**30 bytes); the lesson uses decimal GB (10**9 bytes)": 14e9 / 2**30,
        },
    )


@question("ms_per_token")
def test_ms_per_token(learner, decode):
    decode.expect_value(
        "ms_per_token",
        learner.value("ms_per_token"),
        14,
        meaning="milliseconds per decode step: 14 GB read at 1,000 GB/s",
        wrong={
            "the tokens per second (1 TB/s / 14 GB); the question asks for the time per token": EXPECTED_TOKENS_PER_S,
            "14 / 1000 written as seconds (the question asks for milliseconds)": 0.014,
            "bandwidth / bytes in tokens per millisecond: the formula is upside down": 1 / 14,
        },
    )


@question("max_tokens_per_s")
def test_max_tokens_per_s(learner, decode):
    value = learner.value("max_tokens_per_s")
    hint = ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - EXPECTED_TOKENS_PER_S) < 1:
        hint = (
            "Close: round to one decimal or more (1000 / 14 = 71.43 to two decimals), or keep the computed value; "
            "rounding to a whole number loses too much."
        )
    decode.expect_value(
        "max_tokens_per_s",
        value,
        EXPECTED_TOKENS_PER_S,
        meaning="decode steps per second, 1000 ms / 14 ms per step",
        abs_tol=0.05,
        wrong={
            "the milliseconds per token; tokens per second is 1000 / ms_per_token": 14,
            "the seconds per token; tokens per second is 1 / seconds_per_token": 0.014,
            "1 / 14 ms: tokens per millisecond, not per second": 1 / 14,
        },
        hint=hint,
    )


@question("answer_prefill_vs_decode")
def test_answer_prefill_vs_decode(learner, reference, decode):
    decode.expect_choice(
        "answer_prefill_vs_decode",
        learner.value("answer_prefill_vs_decode"),
        reference.answer_prefill_vs_decode,
        "Revisit how the two phases use one read of the weights: prefill pushes all the prompt's tokens through "
        "the model together, while decode produces one new token per sequence for each full read of the weights.",
    )


@question("answer_batching_bug")
def test_answer_batching_bug(learner, reference, decode):
    decode.expect_choice(
        "answer_batching_bug",
        learner.value("answer_batching_bug"),
        reference.answer_batching_bug,
        "Revisit what batching changes while decode is memory-bound: one step serves every stream in the batch, "
        "so the total tokens per second grows with the batch but each stream's own speed does not.",
    )
