"""request_time and batch_throughput: what a user waits for, and what batching does and does not speed up."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, magnitudes as sizes, question


PARAM_BYTES = sizes(8, 12)
BANDWIDTH = sizes(10, 13)
TTFT = st.one_of(st.floats(0.01, 3.0), st.sampled_from([1, 2]))  # seconds to the first token
ITL = st.floats(0.002, 0.2)  # seconds between tokens
N_OUT = st.integers(1, 500)

REQUEST_PARAMS = ("ttft", "itl", "n_out")
BATCH_PARAMS = ("param_bytes", "bandwidth", "batch")


# -- request_time --------------------------------------------------------------------------------------------------

@question("request_time")
def test_request_worked_example(learner, decode):
    """First token at 0.20 s, then 4 more tokens 0.05 s apart: 0.40 s."""
    got = learner.call("request_time", 0.20, 0.05, 5)
    decode.expect_seconds(got, 0.40, decode.request_time_mistakes(0.20, 0.05, 5))


@question("request_time")
def test_request_single_token(learner, decode):
    """One output token: the request ends when it arrives, at the ttft."""
    got = learner.call("request_time", 0.35, 0.021, 1)
    decode.expect_seconds(got, 0.35, decode.request_time_mistakes(0.35, 0.021, 1))


@question("request_time", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(ttft=TTFT, itl=ITL, n_out=N_OUT)
def test_request_generated(learner, decode, ttft, itl, n_out):
    got = learner.call("request_time", ttft, itl, n_out)
    decode.expect_seconds(got, decode.request_time(ttft, itl, n_out), decode.request_time_mistakes(ttft, itl, n_out))


@question("request_time")
def test_request_keywords(learner, decode):
    ttft, itl, n_out = 0.83, 0.0173, 128
    got = decode.call_kw(learner, "request_time", REQUEST_PARAMS, n_out=n_out, itl=itl, ttft=ttft)
    decode.expect_seconds(got, decode.request_time(ttft, itl, n_out), decode.request_time_mistakes(ttft, itl, n_out))


# -- batch_throughput ------------------------------------------------------------------------------------------------

@question("batch_throughput")
def test_batch_worked_example(learner, decode):
    """8 streams on a 14 GB model at 1 TB/s: 571 tokens/s in total, still 71.4 tokens/s each."""
    got = learner.call("batch_throughput", 14e9, 1e12, 8)
    decode.expect_batch(got, 14e9, 1e12, 8)


@question("batch_throughput")
def test_batch_of_one(learner, decode):
    got = learner.call("batch_throughput", 3.2e9, 4.5e11, 1)
    decode.expect_batch(got, 3.2e9, 4.5e11, 1)


@question("batch_throughput", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH, batch=st.integers(2, 256))
def test_batch_generated(learner, decode, param_bytes, bandwidth, batch):
    got = learner.call("batch_throughput", param_bytes, bandwidth, batch)
    decode.expect_batch(got, param_bytes, bandwidth, batch)


@question("batch_throughput")
def test_batch_keywords(learner, decode):
    param_bytes, bandwidth, batch = 70_000_000_000, 3_350_000_000_000, 32
    got = decode.call_kw(learner, "batch_throughput", BATCH_PARAMS, batch=batch, bandwidth=bandwidth, param_bytes=param_bytes)
    decode.expect_batch(got, param_bytes, bandwidth, batch)
