"""request_time and batch_throughput: what a user waits for, and what batching does and does not speed up."""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes as sizes


PARAM_BYTES = sizes(8, 12)
BANDWIDTH = sizes(10, 13)
TTFT = st.one_of(st.floats(0.01, 3.0), st.sampled_from([1, 2]))  # seconds to the first token
ITL = st.floats(0.002, 0.2)  # seconds between tokens
N_OUT = st.integers(1, 500)

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated("request_time", examples=10, ttft=TTFT, itl=ITL, n_out=N_OUT)
def test_request_generated(learner, decode, ttft, itl, n_out):
    decode.check_call(learner, "request_time", ttft=ttft, itl=itl, n_out=n_out)


@generated("batch_throughput", examples=8, param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH, batch=st.integers(2, 256))
def test_batch_generated(learner, decode, param_bytes, bandwidth, batch):
    decode.check_call(learner, "batch_throughput", param_bytes=param_bytes, bandwidth=bandwidth, batch=batch)


function_tests(globals(), "decode", [
    FunctionQuestion(
        # First token at 0.20 s, then 4 more tokens 0.05 s apart: 0.40 s. One output token: the request ends when
        # it arrives, at the ttft. Two: one gap more.
        "request_time", "request",
        worked=[dict(ttft=0.20, itl=0.05, n_out=5)],
        edges=[Cases("single_token", [dict(ttft=0.35, itl=0.021, n_out=n_out) for n_out in (1, 2)])],
        generated=test_request_generated,
        keywords=[dict(n_out=128, itl=0.0173, ttft=0.83)],
        check="check_call",
    ),
    FunctionQuestion(
        # 8 streams on a 14 GB model at 1 TB/s: 571 tokens/s in total, still 71.4 tokens/s each.
        "batch_throughput", "batch",
        worked=[dict(param_bytes=14e9, bandwidth=1e12, batch=8)],
        edges=[Cases("of_one", [dict(param_bytes=3.2e9, bandwidth=4.5e11, batch=1)])],
        generated=test_batch_generated,
        keywords=[dict(batch=32, bandwidth=3_350_000_000_000, param_bytes=70_000_000_000)],
        check="check_call",
    ),
])
