"""percentile and latency_summary: a distribution read by its percentiles, with the lesson's method (linear
interpolation, numpy's default)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, question

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


@question("percentile")
def test_percentile_worked_example(learner, rq):
    """The text's five requests: p90 lies 0.6 of the way from 400 to 1,000 ms."""
    for p in (90, 50):
        rq.check(learner, "percentile", samples=[300, 100, 200, 400, 1000], p=p)


@question("percentile")
def test_percentile_methods_told_apart(learner, rq):
    """Inputs on which the usual other methods (nearest rank, no interpolation, an off-by-one rank) give different
    samples, confirmed on a second input where they coincide differently: at n = 7, p = 10 nearest rank is floor(h)
    and round(h) is ceil(h); at n = 17, p = 90 nearest rank is ceil(h) and round(h) is floor(h)."""
    rq.check(
        learner, "percentile", samples=[0.52, 0.31, 0.97, 0.44, 0.73, 0.36, 0.61], p=10,
        other={"samples": [0.1 * k + 0.003 * k * k for k in (5, 1, 12, 7, 16, 3, 9, 14, 2, 11, 6, 15, 4, 8, 13, 10, 17)], "p": 90}, raised=LAST,
    )


@question("percentile")
def test_percentile_ends_and_one_sample(learner, rq):
    """p = 0 is the smallest sample, p = 100 the largest; one sample is every percentile."""
    samples = [0.91, 0.37, 2.6, 0.58, 1.42, 0.44]
    for p in (0, 100, 0.01, 99.99):
        rq.check(learner, "percentile", samples=samples, p=p, raised=LAST)
    for p in (0, 37, 100):
        rq.check(learner, "percentile", samples=[0.733], p=p, raised=LAST)


@question("percentile")
def test_percentile_equal_and_two_samples(learner, rq):
    rq.check(learner, "percentile", samples=[0.25] * 9, p=73, raised=LAST)
    rq.check(learner, "percentile", samples=[0.8, 0.2], p=30, raised=LAST)


@question("percentile", weight=2)
@settings(max_examples=16, phases=NO_SHRINK)
@given(samples=st.lists(LATENCY, min_size=3, max_size=60, unique=True), p=P)
def test_percentile_generated(learner, rq, samples, p):
    rq.check(learner, "percentile", samples=samples, p=p, raised=LAST)


@question("percentile")
def test_percentile_keywords(learner, rq):
    rq.check(learner, "percentile", keywords=True, p=99, samples=[0.41, 0.39, 6.0, 0.4, 0.43, 0.38, 5.1])


# -- latency_summary -------------------------------------------------------------------------------------------------


@question("latency_summary")
def test_summary_worked_example(learner, rq):
    rq.check(learner, "latency_summary", latencies=[300, 100, 200, 400, 1000])


@question("latency_summary")
def test_summary_a_slow_tail(learner, rq):
    """The text's 100 requests, reordered and with other values: a mean that looks fine, a p99 that does not."""
    latencies = [0.38 + 0.001 * (k % 7) for k in range(97)] + [5.7, 6.2, 4.9]
    rq.check(learner, "latency_summary", latencies=latencies[::3] + latencies[1::3] + latencies[2::3])


@question("latency_summary")
def test_summary_one_latency(learner, rq):
    rq.check(learner, "latency_summary", latencies=[0.61])


@question("latency_summary", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(latencies=st.lists(LATENCY, min_size=3, max_size=60, unique=True))
def test_summary_generated(learner, rq, latencies):
    rq.check(learner, "latency_summary", latencies=latencies)
