"""Part 1's by-hand numbers (TTFT 0.6 s, ITL 32 ms, 60 tokens; ten latencies) and the three choices.

No sentence here states a by-hand answer: the expected value is withheld from learners (reveal "never").
"""

from grader.testing import question

TTFT, ITL, N_OUT = 0.6, 0.032, 60
LATENCY = TTFT + (N_OUT - 1) * ITL
SAMPLES = [230, 210, 250, 1900, 240, 220, 260, 215, 245, 235]
SORTED = sorted(SAMPLES)
MEAN = sum(SAMPLES) / len(SAMPLES)
MIDDLE = "That is one of the two middle values, without interpolating: with ten values the rank is 4.5, halfway between the 5th and 6th sorted values."


def _p(p):
    h = (len(SORTED) - 1) * p / 100
    i = int(h)
    return SORTED[i] + (h - i) * (SORTED[min(i + 1, len(SORTED) - 1)] - SORTED[i])


@question("latency_s")
def test_latency_s(learner, rq):
    rq.expect_value(
        "latency_s", learner.value("latency_s"), LATENCY,
        meaning="the end-to-end latency, in seconds, of a request with that TTFT, ITL and number of tokens",
        unit="s",
        slips={
            "That counts n_out gaps after the first token: the first token arrives at the TTFT, so only n_out - 1 "
            "gaps follow.": TTFT + N_OUT * ITL,
            "The TTFT is missing: the wait for the first token is part of the latency.": (N_OUT - 1) * ITL,
            "The TTFT is missing and there is one gap too many: the first token arrives at the TTFT, then n_out - 1 "
            "gaps follow.": N_OUT * ITL,
            "That counts one gap too few: after the first token come n_out - 1 gaps.": TTFT + (N_OUT - 2) * ITL,
            "The ITL was used in milliseconds while the TTFT is in seconds: convert 32 ms to 0.032 s first.": TTFT
            + (N_OUT - 1) * 32,
        },
        hint="The first token arrives at the TTFT; n_out - 1 gaps of ITL follow, all in seconds.",
    )


@question("steady_tokens_per_s")
def test_steady_tokens_per_s(learner, rq):
    rq.expect_value(
        "steady_tokens_per_s", learner.value("steady_tokens_per_s"), 1 / ITL,
        meaning="the steady decode rate, in tokens per second, at that ITL",
        unit="tokens/s",
        slips={
            "That is the ITL itself, in ms: the rate is its reciprocal, 1 / ITL in seconds.": 32,
            "That is the ITL itself, in seconds: the rate is its reciprocal.": ITL,
            "That is the request's output rate, n_out / T, with the TTFT in it: the steady rate is 1 / ITL alone.": N_OUT
            / LATENCY,
            "That is tokens per millisecond (1 / 32): one token per 0.032 s gives tokens per second.": 1 / 32,
        },
        hint="One token per ITL, with the ITL in seconds.",
    )


@question("request_tokens_per_s")
def test_request_tokens_per_s(learner, rq):
    rq.expect_value(
        "request_tokens_per_s", learner.value("request_tokens_per_s"), N_OUT / LATENCY,
        meaning="the request's output rate over its whole latency, in tokens per second",
        unit="tokens/s", abs_tol=0.05,
        slips={
            "That is the steady decode rate, 1 / ITL: the request's output rate divides its tokens by its whole "
            "latency, TTFT included.": 1 / ITL,
            "Only n_out - 1 tokens were counted: all n_out tokens arrive within the latency.": (N_OUT - 1) / LATENCY,
            "The latency used has one gap too many (n_out gaps instead of n_out - 1).": N_OUT / (TTFT + N_OUT * ITL),
            "The TTFT is left out of the time: the user waits for it too.": N_OUT / ((N_OUT - 1) * ITL),
            "It is upside down: that is seconds per token, T / n_out.": LATENCY / N_OUT,
            "That is tokens per millisecond: divide by the latency in seconds.": N_OUT / (LATENCY * 1000),
            "That is n_out / TTFT: divide by the whole latency, not the wait for the first token.": N_OUT / TTFT,
        },
        hint="Divide all n_out tokens by the whole latency T (latency_s), and keep one decimal place.",
    )


@question("mean_ms")
def test_mean_ms(learner, rq):
    rq.expect_value(
        "mean_ms", learner.value("mean_ms"), MEAN,
        meaning="the mean of the ten latencies, in ms",
        unit="ms",
        slips={
            "That is the median: the mean is the sum divided by the count, and the slow request pulls it up.": _p(50),
            "That is the sum: divide it by the count, 10.": sum(SAMPLES),
            "That is the mean without the slow request: the mean counts every sample, 1900 ms included.": (
                sum(SAMPLES) - 1900
            ) / 9,
            "The sum was divided by 9: there are ten latencies.": sum(SAMPLES) / 9,
        },
        hint="Add the ten latencies and divide by 10.",
    )


@question("p50_ms")
def test_p50_ms(learner, rq):
    rq.expect_value(
        "p50_ms", learner.value("p50_ms"), _p(50),
        meaning="the median (p50) of the ten latencies, in ms",
        unit="ms",
        slips={
            "That is the mean: the median is read off the sorted values, and one slow request cannot drag it up.": MEAN,
            MIDDLE: SORTED[4],
            MIDDLE + " ": SORTED[5],
            "The values were not sorted first: the median is the middle of the sorted list.": (SAMPLES[4] + SAMPLES[5])
            / 2,
            "That is halfway between the smallest and the largest value, not the middle of the sorted values.": (
                SORTED[0] + SORTED[-1]
            ) / 2,
        },
        hint="Sort the ten values; the median is halfway between the 5th and 6th of them.",
    )


@question("p99_ms")
def test_p99_ms(learner, rq):
    rq.expect_value(
        "p99_ms", learner.value("p99_ms"), _p(99),
        meaning="the 99th percentile of the ten latencies, in ms",
        unit="ms",
        slips={
            "That is the largest value (nearest rank, or a rank of n x p / 100): with linear interpolation the rank is "
            "(n - 1) x 99 / 100 = 8.91, between the 9th and 10th sorted values.": SORTED[-1],
            "That is the sorted value at floor(h), without interpolating: move 0.91 of the way to the next one.": SORTED[8],
            "That moved 0.99 of the way: the fraction is h - floor(h), with h = (n - 1) x 99 / 100.": SORTED[8]
            + 0.99 * (SORTED[9] - SORTED[8]),
            "The values were not sorted first: interpolate between the 9th and 10th sorted values.": SAMPLES[8]
            + 0.91 * (SAMPLES[9] - SAMPLES[8]),
            "That is the mean, not a percentile.": MEAN,
            "That moved 0.9 of the way: the rank is 9 x 0.99 = 8.91, so the fraction is 0.91.": SORTED[8]
            + 0.9 * (SORTED[9] - SORTED[8]),
        },
        hint="Sort; h = 9 x 0.99; start at the sorted value at floor(h) and move the fraction h - floor(h) towards the next.",
    )


# -- choices: why each wrong option is wrong, for the letters of the solution this was written against ----------------

WHY_NOT = {
    "answer_compare_engines": ("B", {
        "A": "Both pages say tokens/s, but not the same tokens/s: one replica can serve many requests at once, and "
             "a fleet's total is far above any one request's rate.",
        "C": "95 tokens/s is a plausible output rate for one request (TTFT included), not a sign of a fault.",
        "D": "A replica serving many requests at once can produce far more than one stream's rate in total.",
    }),
    "answer_tail_target": ("D", {
        "A": "A mean mixes a few slow requests into many fast ones: it can look fine while the tail does not. The "
             "target names the p99.",
        "B": "The target names the p99, the tail: the typical request is not what it constrains.",
        "C": "One day's requests are many samples; the p99 they give is what the target is checked against.",
    }),
    "answer_longer_reply": ("A", {
        "B": "Later decode steps read a longer KV cache, so they are if anything slower, not faster.",
        "C": "A request's output rate counts its own tokens over its own latency; no batch total is credited to it.",
        "D": "Every reply has n_out - 1 gaps; what does not grow with n_out is the TTFT.",
    }),
}

GENERAL = {
    "answer_compare_engines": "Which of the three tokens per second could each page be quoting?",
    "answer_tail_target": "Which statistic does the target name?",
    "answer_longer_reply": "Which part of T = TTFT + (n_out - 1) x ITL does not grow with n_out?",
}


def _check_choice(learner, reference, rq, name):
    rq.expect_choice(name, learner.value(name), getattr(reference, name), GENERAL[name], WHY_NOT[name])


@question("answer_compare_engines")
def test_answer_compare_engines(learner, reference, rq):
    _check_choice(learner, reference, rq, "answer_compare_engines")


@question("answer_tail_target")
def test_answer_tail_target(learner, reference, rq):
    _check_choice(learner, reference, rq, "answer_tail_target")


@question("answer_longer_reply")
def test_answer_longer_reply(learner, reference, rq):
    _check_choice(learner, reference, rq, "answer_longer_reply")
