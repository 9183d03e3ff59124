"""kv_step_seconds and kv_decode_time: each step also reads the KV cache, which grows by one token per step."""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes as sizes


PARAM_BYTES = sizes(8, 12)
BANDWIDTH = sizes(10, 13)
# Bytes of K and V per token across all layers: 2 * layers * kv_heads * head_dim * bytes; 16 KB .. 4 MB.
KV_BYTES = st.one_of(st.sampled_from([131_072, 327_680, 524_288, 819_200]), sizes(4, 6))

# A 7B-class model in 16-bit: 14 GB of weights, 512 KiB of KV cache per position (32 layers x 4096 x 2 x 2 bytes).
P7, KV7, BW = 14e9, 524_288, 1e12

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated(
    "kv_step_seconds", examples=10, param_bytes=PARAM_BYTES, kv_bytes_per_token=KV_BYTES,
    context_len=st.integers(1, 32_768), bandwidth=BANDWIDTH,
)
def test_kv_step_generated(learner, decode, param_bytes, kv_bytes_per_token, context_len, bandwidth):
    decode.check_call(
        learner, "kv_step_seconds",
        param_bytes=param_bytes, kv_bytes_per_token=kv_bytes_per_token, context_len=context_len, bandwidth=bandwidth,
    )


@generated(
    "kv_decode_time",
    examples=6,
    n_tokens=st.integers(2, 10),
    prompt_len=st.integers(1, 32_768),
    param_bytes=PARAM_BYTES,
    kv_bytes_per_token=KV_BYTES,
    bandwidth=BANDWIDTH,
)
def test_kv_decode_generated(learner, decode, n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    decode.check_call(
        learner, "kv_decode_time",
        n_tokens=n_tokens, prompt_len=prompt_len, param_bytes=param_bytes, kv_bytes_per_token=kv_bytes_per_token,
        bandwidth=bandwidth,
    )


function_tests(globals(), "decode", [
    FunctionQuestion(
        # The notebook's example: 1,000 positions of 0.5 MB add 0.5 GB to the 14 GB read, 14.5 ms per step. No
        # context yet: only the weights are read; one position: one token's KV more.
        "kv_step_seconds", "kv_step",
        worked=[dict(param_bytes=14e9, kv_bytes_per_token=5e5, context_len=1000, bandwidth=1e12)],
        edges=[Cases("short_contexts", [
            dict(param_bytes=6.7e9, kv_bytes_per_token=262_144, context_len=context_len, bandwidth=2.0e12)
            for context_len in (0, 1)
        ])],
        generated=test_kv_step_generated,
        keywords=[dict(bandwidth=3.35e12, context_len=12_000, kv_bytes_per_token=327_680, param_bytes=140e9)],
        check="check_call",
    ),
    FunctionQuestion(
        # The notebook's example: 3 tokens after a 1,000-token prompt, 14.5 + 14.5005 + 14.501 = 43.5015 ms. 20 new
        # tokens after a 2000-token prompt: contexts 2000, 2001, ..., 2019. No new tokens take no time; one new
        # token after an empty prompt is one step at context 0, after a prompt of 7 one step at context 7.
        "kv_decode_time", "kv_decode",
        worked=[dict(n_tokens=3, prompt_len=1000, param_bytes=14e9, kv_bytes_per_token=5e5, bandwidth=1e12)],
        edges=[
            Cases("long_generation", [
                dict(n_tokens=20, prompt_len=2000, param_bytes=P7, kv_bytes_per_token=KV7, bandwidth=BW)
            ]),
            Cases("edge_cases", [
                dict(n_tokens=n_tokens, prompt_len=prompt_len, param_bytes=1.3e10, kv_bytes_per_token=409_600,
                     bandwidth=9.0e11)
                for n_tokens, prompt_len in ((0, 512), (1, 0), (1, 7))
            ]),
        ],
        generated=test_kv_decode_generated,
        keywords=[dict(bandwidth=2.0e12, kv_bytes_per_token=163_840, param_bytes=1.6e10, prompt_len=731, n_tokens=6)],
        check="check_call",
    ),
])
