"""kv_step_seconds and kv_decode_time: each step also reads the KV cache, which grows by one token per step."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, magnitudes as sizes, question


PARAM_BYTES = sizes(8, 12)
BANDWIDTH = sizes(10, 13)
# Bytes of K and V per token across all layers: 2 * layers * kv_heads * head_dim * bytes; 16 KB .. 4 MB.
KV_BYTES = st.one_of(st.sampled_from([131_072, 327_680, 524_288, 819_200]), sizes(4, 6))

STEP_PARAMS = ("param_bytes", "kv_bytes_per_token", "context_len", "bandwidth")
TIME_PARAMS = ("n_tokens", "prompt_len", "param_bytes", "kv_bytes_per_token", "bandwidth")

# A 7B-class model in 16-bit: 14 GB of weights, 512 KiB of KV cache per position (32 layers x 4096 x 2 x 2 bytes).
P7, KV7, BW = 14e9, 524_288, 1e12


# -- kv_step_seconds -------------------------------------------------------------------------------------------------

@question("kv_step_seconds")
def test_kv_step_worked_example(learner, decode):
    """The notebook's example: 1,000 positions of 0.5 MB add 0.5 GB to the 14 GB read, 14.5 ms per step."""
    got = learner.call("kv_step_seconds", 14e9, 5e5, 1000, 1e12)
    decode.expect_seconds(got, 0.0145, decode.kv_step_mistakes(14e9, 5e5, 1000, 1e12))


@question("kv_step_seconds")
def test_kv_step_empty_context(learner, decode):
    """No context yet: only the weights are read."""
    got = learner.call("kv_step_seconds", 6.7e9, 262_144, 0, 2.0e12)
    decode.expect_seconds(got, 6.7e9 / 2.0e12, decode.kv_step_mistakes(6.7e9, 262_144, 0, 2.0e12))


@question("kv_step_seconds", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(param_bytes=PARAM_BYTES, kv_bytes_per_token=KV_BYTES, context_len=st.integers(1, 32_768), bandwidth=BANDWIDTH)
def test_kv_step_generated(learner, decode, param_bytes, kv_bytes_per_token, context_len, bandwidth):
    got = learner.call("kv_step_seconds", param_bytes, kv_bytes_per_token, context_len, bandwidth)
    decode.expect_seconds(
        got,
        decode.kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth),
        decode.kv_step_mistakes(param_bytes, kv_bytes_per_token, context_len, bandwidth),
    )


@question("kv_step_seconds")
def test_kv_step_keywords(learner, decode):
    args = dict(bandwidth=3.35e12, context_len=12_000, kv_bytes_per_token=327_680, param_bytes=140e9)
    got = decode.call_kw(learner, "kv_step_seconds", STEP_PARAMS, **args)
    decode.expect_seconds(got, decode.kv_step_seconds(**args), decode.kv_step_mistakes(**args))


# -- kv_decode_time ----------------------------------------------------------------------------------------------------

@question("kv_decode_time")
def test_kv_decode_worked_example(learner, decode):
    """The notebook's example: 3 tokens after a 1,000-token prompt, 14.5 + 14.5005 + 14.501 = 43.5015 ms."""
    got = learner.call("kv_decode_time", 3, 1000, 14e9, 5e5, 1e12)
    decode.expect_seconds(got, 0.0435015, decode.kv_decode_mistakes(3, 1000, 14e9, 5e5, 1e12))


@question("kv_decode_time")
def test_kv_decode_long_generation(learner, decode):
    """50 new tokens after a 2000-token prompt: contexts 2000, 2001, ..., 2049."""
    got = learner.call("kv_decode_time", 50, 2000, P7, KV7, BW)
    decode.expect_seconds(got, decode.kv_decode_time(50, 2000, P7, KV7, BW), decode.kv_decode_mistakes(50, 2000, P7, KV7, BW))


@question("kv_decode_time")
def test_kv_decode_edge_cases(learner, decode):
    """No new tokens take no time; one new token after an empty prompt is one step at context 0."""
    for n_tokens, prompt_len, param_bytes, kv, bandwidth in ((0, 512, 1.3e10, 409_600, 9.0e11), (1, 0, 1.3e10, 409_600, 9.0e11)):
        got = learner.call("kv_decode_time", n_tokens, prompt_len, param_bytes, kv, bandwidth)
        decode.expect_seconds(
            got,
            decode.kv_decode_time(n_tokens, prompt_len, param_bytes, kv, bandwidth),
            decode.kv_decode_mistakes(n_tokens, prompt_len, param_bytes, kv, bandwidth),
        )


@question("kv_decode_time", weight=2)
@settings(max_examples=6, phases=NO_SHRINK)
@given(
    n_tokens=st.integers(2, 10),
    prompt_len=st.integers(1, 32_768),
    param_bytes=PARAM_BYTES,
    kv_bytes_per_token=KV_BYTES,
    bandwidth=BANDWIDTH,
)
def test_kv_decode_generated(learner, decode, n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    got = learner.call("kv_decode_time", n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth)
    decode.expect_seconds(
        got,
        decode.kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth),
        decode.kv_decode_mistakes(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth),
    )


@question("kv_decode_time")
def test_kv_decode_keywords(learner, decode):
    args = dict(bandwidth=2.0e12, kv_bytes_per_token=163_840, param_bytes=1.6e10, prompt_len=731, n_tokens=17)
    got = decode.call_kw(learner, "kv_decode_time", TIME_PARAMS, **args)
    decode.expect_seconds(got, decode.kv_decode_time(**args), decode.kv_decode_mistakes(**args))
