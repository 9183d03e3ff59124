"""request_time and batch_throughput: what a user waits for, and what batching does and does not speed up."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, magnitudes as sizes, question


PARAM_BYTES = sizes(8, 12)
BANDWIDTH = sizes(10, 13)
TTFT = st.one_of(st.floats(0.01, 3.0), st.sampled_from([1, 2]))  # seconds to the first token
ITL = st.floats(0.002, 0.2)  # seconds between tokens
N_OUT = st.integers(1, 500)


# -- request_time --------------------------------------------------------------------------------------------------

@question("request_time")
def test_request_worked_example(learner, decode):
    """First token at 0.20 s, then 4 more tokens 0.05 s apart: 0.40 s."""
    decode.check_call(learner, "request_time", ttft=0.20, itl=0.05, n_out=5)


@question("request_time")
def test_request_single_token(learner, decode):
    """One output token: the request ends when it arrives, at the ttft. Two: one gap more."""
    decode.check_call(learner, "request_time", ttft=0.35, itl=0.021, n_out=1)
    decode.check_call(learner, "request_time", ttft=0.35, itl=0.021, n_out=2)


@question("request_time", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(ttft=TTFT, itl=ITL, n_out=N_OUT)
def test_request_generated(learner, decode, ttft, itl, n_out):
    decode.check_call(learner, "request_time", ttft=ttft, itl=itl, n_out=n_out)


@question("request_time")
def test_request_keywords(learner, decode):
    decode.check_call(learner, "request_time", keywords=True, n_out=128, itl=0.0173, ttft=0.83)


# -- batch_throughput ------------------------------------------------------------------------------------------------

@question("batch_throughput")
def test_batch_worked_example(learner, decode):
    """8 streams on a 14 GB model at 1 TB/s: 571 tokens/s in total, still 71.4 tokens/s each."""
    decode.check_call(learner, "batch_throughput", param_bytes=14e9, bandwidth=1e12, batch=8)


@question("batch_throughput")
def test_batch_of_one(learner, decode):
    decode.check_call(learner, "batch_throughput", param_bytes=3.2e9, bandwidth=4.5e11, batch=1)


@question("batch_throughput", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH, batch=st.integers(2, 256))
def test_batch_generated(learner, decode, param_bytes, bandwidth, batch):
    decode.check_call(learner, "batch_throughput", param_bytes=param_bytes, bandwidth=bandwidth, batch=batch)


@question("batch_throughput")
def test_batch_keywords(learner, decode):
    decode.check_call(
        learner, "batch_throughput", keywords=True, batch=32, bandwidth=3_350_000_000_000, param_bytes=70_000_000_000
    )
