"""decode_step_seconds, tokens_per_second, decode_time: one decode step reads every weight once."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, magnitudes as sizes, question


PARAM_BYTES = sizes(8, 12)  # 100 MB .. 1 TB of weights
BANDWIDTH = sizes(10, 13)  # 10 GB/s .. 10 TB/s
N_TOKENS = st.integers(1, 400)

STEP_PARAMS = ("param_bytes", "bandwidth")
TIME_PARAMS = ("n_tokens", "param_bytes", "bandwidth")


# -- decode_step_seconds ---------------------------------------------------------------------------------------

@question("decode_step_seconds")
def test_step_worked_example(learner, decode):
    """The notebook's example: 14 GB of weights at 1 TB/s, 14 ms per step."""
    got = learner.call("decode_step_seconds", 14e9, 1e12)
    decode.expect_seconds(got, 0.014, decode.step_mistakes(14e9, 1e12))


@question("decode_step_seconds", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_step_generated(learner, decode, param_bytes, bandwidth):
    got = learner.call("decode_step_seconds", param_bytes, bandwidth)
    decode.expect_seconds(got, decode.decode_step_seconds(param_bytes, bandwidth), decode.step_mistakes(param_bytes, bandwidth))


@question("decode_step_seconds")
def test_step_keywords(learner, decode):
    for param_bytes, bandwidth in ((140_000_000_000, 3_350_000_000_000), (1.6e9, 6.4e10)):
        got = decode.call_kw(learner, "decode_step_seconds", STEP_PARAMS, bandwidth=bandwidth, param_bytes=param_bytes)
        decode.expect_seconds(got, param_bytes / bandwidth, decode.step_mistakes(param_bytes, bandwidth))


# -- tokens_per_second -------------------------------------------------------------------------------------------

@question("tokens_per_second")
def test_tps_worked_example(learner, decode):
    """The notebook's example: 14 GB at 1 TB/s, 1 / 0.014 s = 71.43 tokens per second."""
    got = learner.call("tokens_per_second", 14e9, 1e12)
    decode.expect_seconds(got, 1e12 / 14e9, decode.tps_mistakes(14e9, 1e12), unit="tokens/s")


@question("tokens_per_second", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_tps_generated(learner, decode, param_bytes, bandwidth):
    got = learner.call("tokens_per_second", param_bytes, bandwidth)
    decode.expect_seconds(
        got, decode.tokens_per_second(param_bytes, bandwidth), decode.tps_mistakes(param_bytes, bandwidth), unit="tokens/s"
    )


@question("tokens_per_second")
def test_tps_keywords(learner, decode):
    param_bytes, bandwidth = 16_060_000_000, 2_039_000_000_000
    got = decode.call_kw(learner, "tokens_per_second", STEP_PARAMS, bandwidth=bandwidth, param_bytes=param_bytes)
    decode.expect_seconds(got, bandwidth / param_bytes, decode.tps_mistakes(param_bytes, bandwidth), unit="tokens/s")


# -- decode_time ---------------------------------------------------------------------------------------------------

@question("decode_time")
def test_time_worked_example(learner, decode):
    """The notebook's example: 100 tokens at 14 ms each, 1.4 s."""
    got = learner.call("decode_time", 100, 14e9, 1e12)
    decode.expect_seconds(got, 1.4, decode.decode_time_mistakes(100, 14e9, 1e12))


@question("decode_time")
def test_time_zero_tokens(learner, decode):
    """No new tokens, no decode steps: 0 seconds."""
    got = learner.call("decode_time", 0, 7.5e9, 9e11)
    decode.expect_seconds(got, 0.0, decode.decode_time_mistakes(0, 7.5e9, 9e11))


@question("decode_time", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(n_tokens=N_TOKENS, param_bytes=PARAM_BYTES, bandwidth=BANDWIDTH)
def test_time_generated(learner, decode, n_tokens, param_bytes, bandwidth):
    got = learner.call("decode_time", n_tokens, param_bytes, bandwidth)
    decode.expect_seconds(
        got,
        decode.decode_time(n_tokens, param_bytes, bandwidth),
        decode.decode_time_mistakes(n_tokens, param_bytes, bandwidth),
    )


@question("decode_time")
def test_time_keywords(learner, decode):
    n_tokens, param_bytes, bandwidth = 37, 2.6e10, 8.19e11
    got = decode.call_kw(
        learner, "decode_time", TIME_PARAMS, bandwidth=bandwidth, param_bytes=param_bytes, n_tokens=n_tokens
    )
    decode.expect_seconds(
        got,
        decode.decode_time(n_tokens, param_bytes, bandwidth),
        decode.decode_time_mistakes(n_tokens, param_bytes, bandwidth),
    )
