"""decode_step_seconds, tokens_per_second, decode_time: one decode step reads every weight once.

Each check calls the learner's function and compares it with the spec (conftest.check_call); a wrong answer is
called once more with other inputs, so a hard-coded number is named as such.
"""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes as sizes


PARAM_BYTES = sizes(8, 12)  # 100 MB .. 1 TB of weights
BANDWIDTH = sizes(10, 13)  # 10 GB/s .. 10 TB/s
N_TOKENS = st.integers(0, 400)
EXAMPLE = {"param_bytes": 14e9, "bandwidth": 1e12}  # the notebook's 14 GB of weights at 1 TB/s

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated("decode_step_seconds", examples=10, param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_step_generated(learner, decode, param_bytes, bandwidth):
    decode.check_call(learner, "decode_step_seconds", param_bytes=param_bytes, bandwidth=bandwidth)


@generated("tokens_per_second", examples=8, param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_tps_generated(learner, decode, param_bytes, bandwidth):
    decode.check_call(learner, "tokens_per_second", param_bytes=param_bytes, bandwidth=bandwidth)


@generated("decode_time", examples=8, n_tokens=N_TOKENS, param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_time_generated(learner, decode, n_tokens, param_bytes, bandwidth):
    decode.check_call(learner, "decode_time", n_tokens=n_tokens, param_bytes=param_bytes, bandwidth=bandwidth)


function_tests(globals(), "decode", [
    FunctionQuestion(
        # The notebook's example: 14 GB of weights at 1 TB/s, 14 ms per step.
        "decode_step_seconds", "step",
        worked=[EXAMPLE],
        generated=test_step_generated,
        keywords=[
            dict(bandwidth=bandwidth, param_bytes=param_bytes)
            for param_bytes, bandwidth in ((140_000_000_000, 3_350_000_000_000), (1.6e9, 6.4e10))
        ],
        check="check_call",
    ),
    FunctionQuestion(
        # The notebook's example: 14 GB at 1 TB/s, 1 / 0.014 s = 71.43 tokens per second.
        "tokens_per_second", "tps",
        worked=[EXAMPLE],
        generated=test_tps_generated,
        keywords=[dict(bandwidth=2_039_000_000_000, param_bytes=16_060_000_000)],
        check="check_call",
    ),
    FunctionQuestion(
        # The notebook's example: 100 tokens at 14 ms each, 1.4 s. No new tokens, no decode steps: 0 seconds; one
        # token: exactly one step.
        "decode_time", "time",
        worked=[dict(n_tokens=100, **EXAMPLE)],
        edges=[Cases("zero_and_one_token", [
            dict(n_tokens=0, param_bytes=7.5e9, bandwidth=9e11), dict(n_tokens=1, param_bytes=2.6e10, bandwidth=8.19e11)
        ])],
        generated=test_time_generated,
        keywords=[dict(bandwidth=8.19e11, param_bytes=2.6e10, n_tokens=37)],
        check="check_call",
    ),
])
