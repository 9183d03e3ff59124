"""request_latency, itl_from_timestamps, output_rate, fleet_tokens_per_second: the times and rates of a request.

Each check calls the learner's function and compares it with the spec (conftest.check); a wrong result is called
once more with other inputs, and a slip is named only if it explains both results.
"""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import question

TTFT = st.floats(0.013, 4.7)  # seconds to the first token
ITL = st.floats(0.0011, 0.23)  # seconds between tokens
GAP = st.floats(0.0007, 0.31)

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated(
    "request_latency", examples=12, ttft=TTFT, itl=ITL, n_out=st.one_of(st.integers(1, 4), st.integers(5, 3000))
)
def test_latency_generated(learner, rq, ttft, itl, n_out):
    rq.check(learner, "request_latency", ttft=ttft, itl=itl, n_out=n_out)


# -- itl_from_timestamps ------------------------------------------------------------------------------------------


def _arrivals(ttft, gaps):
    times = [ttft]
    for gap in gaps:
        times.append(times[-1] + gap)
    return times


@question("itl_from_timestamps")
def test_itl_uneven_gaps(learner, rq):
    """The text's example, one stalled step among steady ones."""
    rq.check(learner, "itl_from_timestamps", times=[0.5, 0.51, 0.52, 0.55, 0.56])


@question("itl_from_timestamps")
def test_itl_one_and_two_tokens(learner, rq):
    """One token has no gap; two have one."""
    rq.check(learner, "itl_from_timestamps", times=[0.437])
    rq.check(learner, "itl_from_timestamps", times=[0.437, 0.4611])


@question("itl_from_timestamps")
def test_itl_steady_gaps(learner, rq):
    rq.check(learner, "itl_from_timestamps", times=_arrivals(0.29, [0.0125] * 6))


@question("itl_from_timestamps")
def test_itl_a_stall_longer_than_everything_before_it(learner, rq):
    """A fast first token, then a stall longer than all the time before it (a prefill scheduled in between): a
    gap that is not small beside the arrival times themselves."""
    rq.check(learner, "itl_from_timestamps", times=[0.05, 0.3, 0.31, 0.95])


@generated("itl_from_timestamps", examples=12, ttft=TTFT, gaps=st.lists(GAP, min_size=2, max_size=40))
def test_itl_generated(learner, rq, ttft, gaps):
    rq.check(learner, "itl_from_timestamps", times=_arrivals(ttft, gaps))


@generated("output_rate", examples=12, n_out=st.one_of(st.integers(2, 5), st.integers(6, 3000)), ttft=TTFT, itl=ITL)
def test_rate_generated(learner, rq, n_out, ttft, itl):
    rq.check(learner, "output_rate", n_out=n_out, ttft=ttft, itl=itl)


@generated("fleet_tokens_per_second", examples=12, itls=st.lists(ITL, min_size=2, max_size=64, unique=True))
def test_fleet_generated(learner, rq, itls):
    rq.check(learner, "fleet_tokens_per_second", itls=itls)


function_tests(globals(), "rq", [
    FunctionQuestion(
        # The chapter's replica: 0.5 s to the first token, then 499 gaps of 10 ms. One token: the request ends when
        # it arrives, at the TTFT. Two and three: one and two gaps more.
        "request_latency", "latency",
        worked=[dict(ttft=0.5, itl=0.01, n_out=500)],
        edges=[Cases("one_and_two_tokens", [dict(ttft=0.731, itl=0.0217, n_out=n_out) for n_out in (1, 2, 3)])],
        generated=test_latency_generated,
        keywords=[dict(n_out=128, itl=0.0173, ttft=0.83)],
        check="check",
    ),
    FunctionQuestion(
        # With one token the rate is 1 / TTFT: no gap at all.
        "output_rate", "rate",
        worked=[dict(n_out=500, ttft=0.5, itl=0.01)],
        edges=[Cases("one_and_two_tokens", [
            dict(
                n_out=1, ttft=0.43, itl=0.019,
                raised="With n_out = 1 there are no gaps, (n_out - 1) * itl is 0: the request's time is its TTFT.",
            ),
            dict(n_out=2, ttft=0.43, itl=0.019),
        ])],
        generated=test_rate_generated,
        keywords=[dict(itl=0.027, ttft=1.3, n_out=77)],
        check="check",
    ),
    FunctionQuestion(
        # The text's three streams, listed so that the first, the fastest and the slowest are three different ones.
        "fleet_tokens_per_second", "fleet",
        worked=[dict(itls=[0.0125, 0.02, 0.01])],
        edges=[Cases("no_stream_one_stream_equal_streams", [
            dict(
                itls=[],
                raised=(
                    "With no request decoding (an empty list) the fleet produces 0.0 tokens/s: the streams' rates add, "
                    "and a sum of none is 0."
                ),
            ),
            dict(itls=[0.0231]),
            dict(itls=[0.016] * 7),
        ])],
        generated=test_fleet_generated,
        check="check",
    ),
])
