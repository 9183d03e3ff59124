"""decode_step_seconds, tokens_per_second, decode_time: one decode step reads every weight once.

Each check calls the learner's function and compares it with the spec (conftest.check_call); a wrong answer is
called once more with other inputs, so a hard-coded number is named as such.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, magnitudes as sizes, question


PARAM_BYTES = sizes(8, 12)  # 100 MB .. 1 TB of weights
BANDWIDTH = sizes(10, 13)  # 10 GB/s .. 10 TB/s
N_TOKENS = st.integers(0, 400)


# -- decode_step_seconds ---------------------------------------------------------------------------------------

@question("decode_step_seconds")
def test_step_worked_example(learner, decode):
    """The notebook's example: 14 GB of weights at 1 TB/s, 14 ms per step."""
    decode.check_call(learner, "decode_step_seconds", param_bytes=14e9, bandwidth=1e12)


@question("decode_step_seconds", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_step_generated(learner, decode, param_bytes, bandwidth):
    decode.check_call(learner, "decode_step_seconds", param_bytes=param_bytes, bandwidth=bandwidth)


@question("decode_step_seconds")
def test_step_keywords(learner, decode):
    for param_bytes, bandwidth in ((140_000_000_000, 3_350_000_000_000), (1.6e9, 6.4e10)):
        decode.check_call(learner, "decode_step_seconds", keywords=True, bandwidth=bandwidth, param_bytes=param_bytes)


# -- tokens_per_second -------------------------------------------------------------------------------------------

@question("tokens_per_second")
def test_tps_worked_example(learner, decode):
    """The notebook's example: 14 GB at 1 TB/s, 1 / 0.014 s = 71.43 tokens per second."""
    decode.check_call(learner, "tokens_per_second", param_bytes=14e9, bandwidth=1e12)


@question("tokens_per_second", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_tps_generated(learner, decode, param_bytes, bandwidth):
    decode.check_call(learner, "tokens_per_second", param_bytes=param_bytes, bandwidth=bandwidth)


@question("tokens_per_second")
def test_tps_keywords(learner, decode):
    decode.check_call(learner, "tokens_per_second", keywords=True, bandwidth=2_039_000_000_000, param_bytes=16_060_000_000)


# -- decode_time ---------------------------------------------------------------------------------------------------

@question("decode_time")
def test_time_worked_example(learner, decode):
    """The notebook's example: 100 tokens at 14 ms each, 1.4 s."""
    decode.check_call(learner, "decode_time", n_tokens=100, param_bytes=14e9, bandwidth=1e12)


@question("decode_time")
def test_time_zero_and_one_token(learner, decode):
    """No new tokens, no decode steps: 0 seconds; one token: exactly one step."""
    decode.check_call(learner, "decode_time", n_tokens=0, param_bytes=7.5e9, bandwidth=9e11)
    decode.check_call(learner, "decode_time", n_tokens=1, param_bytes=2.6e10, bandwidth=8.19e11)


@question("decode_time", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(n_tokens=N_TOKENS, param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_time_generated(learner, decode, n_tokens, param_bytes, bandwidth):
    decode.check_call(learner, "decode_time", n_tokens=n_tokens, param_bytes=param_bytes, bandwidth=bandwidth)


@question("decode_time")
def test_time_keywords(learner, decode):
    decode.check_call(learner, "decode_time", keywords=True, bandwidth=8.19e11, param_bytes=2.6e10, n_tokens=37)
