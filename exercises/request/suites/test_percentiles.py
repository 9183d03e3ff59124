"""percentile and latency_summary: a distribution read by its percentiles, with the lesson's method (linear
interpolation, numpy's default)."""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated

LATENCY = st.one_of(st.floats(0.05, 9.0), st.integers(20, 5000))
#: The neighbourhood of every special point of p: its ends, the median, and the tail a report reads.
P = st.one_of(
    st.sampled_from([0, 100, 50, 99, 0.01, 99.99, 1, 90]),
    st.floats(0.0, 100.0),
    st.integers(0, 100),
)

LAST = (
    "At p = 100, or with one sample, floor(h) is the last index and s[i + 1] does not exist: return s[i] itself then."
)
#: Inputs on which the usual other methods (nearest rank, no interpolation, an off-by-one rank) give different
#: samples, confirmed on a second input where they coincide differently: at n = 7, p = 10 nearest rank is floor(h)
#: and round(h) is ceil(h); at n = 17, p = 90 nearest rank is ceil(h) and round(h) is floor(h).
TOLD_APART = dict(
    samples=[0.52, 0.31, 0.97, 0.44, 0.73, 0.36, 0.61], p=10,
    other={"samples": [0.1 * k + 0.003 * k * k for k in (5, 1, 12, 7, 16, 3, 9, 14, 2, 11, 6, 15, 4, 8, 13, 10, 17)], "p": 90}, raised=LAST,
)
ENDS = [0.91, 0.37, 2.6, 0.58, 1.42, 0.44]
#: The text's 100 requests, reordered and with other values: a mean that looks fine, a p99 that does not.
SLOW_TAIL = [0.38 + 0.001 * (k % 7) for k in range(97)] + [5.7, 6.2, 4.9]

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated("percentile", examples=16, samples=st.lists(LATENCY, min_size=3, max_size=60, unique=True), p=P)
def test_percentile_generated(learner, rq, samples, p):
    rq.check(learner, "percentile", samples=samples, p=p, raised=LAST)


@generated("latency_summary", examples=10, latencies=st.lists(LATENCY, min_size=3, max_size=60, unique=True))
def test_summary_generated(learner, rq, latencies):
    rq.check(learner, "latency_summary", latencies=latencies)


function_tests(globals(), "rq", [
    FunctionQuestion(
        # The text's five requests: p90 lies 0.6 of the way from 400 to 1,000 ms. p = 0 is the smallest sample,
        # p = 100 the largest; one sample is every percentile.
        "percentile", "percentile",
        worked=[dict(samples=[300, 100, 200, 400, 1000], p=p) for p in (90, 50)],
        edges=[
            Cases("methods_told_apart", [TOLD_APART]),
            Cases("ends_and_one_sample", [
                *(dict(samples=ENDS, p=p, raised=LAST) for p in (0, 100, 0.01, 99.99)),
                *(dict(samples=[0.733], p=p, raised=LAST) for p in (0, 37, 100)),
            ]),
            Cases("equal_and_two_samples", [
                dict(samples=[0.25] * 9, p=73, raised=LAST), dict(samples=[0.8, 0.2], p=30, raised=LAST)
            ]),
        ],
        generated=test_percentile_generated,
        keywords=[dict(p=99, samples=[0.41, 0.39, 6.0, 0.4, 0.43, 0.38, 5.1])],
        check="check",
    ),
    FunctionQuestion(
        "latency_summary", "summary",
        worked=[dict(latencies=[300, 100, 200, 400, 1000])],
        edges=[
            Cases("a_slow_tail", [dict(latencies=SLOW_TAIL[::3] + SLOW_TAIL[1::3] + SLOW_TAIL[2::3])]),
            Cases("one_latency", [dict(latencies=[0.61])]),
        ],
        generated=test_summary_generated,
        check="check",
    ),
])
