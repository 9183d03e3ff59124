"""prefill_flops, prefill_intensity, ridge_point, ttft_seconds, kv_bytes_written: the prefill's arithmetic.

Each check calls the learner's function and compares it with the spec (conftest.check_number); a wrong answer is
called once more on the function's probe, so that a slip is named only when it explains both results. Inputs
cover every special point of each spec and its neighbourhood: prompt_len = 1, 2, 3 (where one token's FLOPs and
the factor 2 coincide), utilisation 1 and just below, one layer, one KV head, 1 byte per value (where a
hard-coded 1 or a left-out factor is invisible), and bytes per parameter on both sides of 1.
"""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes

N_PARAMS = magnitudes(8, 12)  # 100 million .. 1 trillion parameters
PROMPT = st.integers(1, 200_000)
BYTES = st.sampled_from([0.25, 0.5, 0.625, 1, 2, 4])
PEAK = magnitudes(13, 16)  # 10 TFLOP/s .. 10 PFLOP/s
BANDWIDTH = magnitudes(10, 13)  # 10 GB/s .. 10 TB/s
UTILISATION = st.floats(0.05, 1.0)
KV_SHAPE = ("prompt_len", "n_layers", "n_kv_heads", "head_dim", "bytes_per_value")

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated("prefill_flops", examples=10, n_params=N_PARAMS, prompt_len=PROMPT)
def test_flops_generated(learner, prefill, n_params, prompt_len):
    prefill.check_number(learner, "prefill_flops", n_params=n_params, prompt_len=prompt_len)


@generated("prefill_intensity", examples=10, prompt_len=PROMPT, bytes_per_param=BYTES)
def test_intensity_generated(learner, prefill, prompt_len, bytes_per_param):
    prefill.check_number(learner, "prefill_intensity", prompt_len=prompt_len, bytes_per_param=bytes_per_param)


@generated("ridge_point", examples=8, peak_flops=PEAK, bandwidth=BANDWIDTH)
def test_ridge_generated(learner, prefill, peak_flops, bandwidth):
    prefill.check_number(learner, "ridge_point", peak_flops=peak_flops, bandwidth=bandwidth)


@generated("ttft_seconds", examples=10, n_params=N_PARAMS, prompt_len=PROMPT, peak_flops=PEAK, utilisation=UTILISATION)
def test_ttft_generated(learner, prefill, n_params, prompt_len, peak_flops, utilisation):
    prefill.check_number(
        learner, "ttft_seconds", n_params=n_params, prompt_len=prompt_len, peak_flops=peak_flops, utilisation=utilisation
    )


@generated(
    "kv_bytes_written",
    examples=10,
    prompt_len=PROMPT,
    n_layers=st.integers(1, 128),
    n_kv_heads=st.integers(1, 128),
    head_dim=st.sampled_from([64, 80, 96, 128, 256]),
    bytes_per_value=st.sampled_from([0.5, 1, 2, 4]),
)
def test_kv_generated(learner, prefill, prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    prefill.check_number(
        learner, "kv_bytes_written", prompt_len=prompt_len, n_layers=n_layers, n_kv_heads=n_kv_heads,
        head_dim=head_dim, bytes_per_value=bytes_per_value,
    )


function_tests(globals(), "prefill", [
    FunctionQuestion(
        # The notebook's example: 70e9 parameters, 4,000 tokens, 5.6e14 FLOPs. One token is one forward step, 2N;
        # two and three tokens separate the factor 2 from the token count.
        "prefill_flops", "flops",
        worked=[dict(n_params=70e9, prompt_len=4000)],
        edges=[Cases("short_prompts", [dict(n_params=1.3e10, prompt_len=n) for n in (1, 2, 3)])],
        generated=test_flops_generated,
        keywords=[dict(prompt_len=777, n_params=405_000_000_000)],
    ),
    FunctionQuestion(
        # The notebook's example: 4,000 tokens at 1 byte per parameter, 8,000 FLOPs per byte. One token is a decode
        # step's 2 / b; 1 byte hides a factor of b, so 2 bytes and half a byte are tried too, and a 5-bit and a
        # 32-bit model whose intensity is not a whole number (a `//` shows).
        "prefill_intensity", "intensity",
        worked=[dict(prompt_len=4000, bytes_per_param=1)],
        edges=[Cases("one_token_and_precisions", [
            dict(prompt_len=n, bytes_per_param=b)
            for n, b in ((1, 1), (1, 2), (2, 0.5), (3, 2), (3, 4), (4096, 2), (1000, 0.5), (1001, 0.625))
        ])],
        generated=test_intensity_generated,
        keywords=[dict(bytes_per_param=2, prompt_len=333)],
    ),
    FunctionQuestion(
        # The notebook's H200: 1,979 TFLOP/s of dense FP8 over 4.8 TB/s, about 412 FLOPs per byte.
        "ridge_point", "ridge",
        worked=[dict(peak_flops=1.979e15, bandwidth=4.8e12)],
        generated=test_ridge_generated,
        keywords=[dict(bandwidth=2.039e12, peak_flops=312e12)],
    ),
    FunctionQuestion(
        # The notebook's example: 4,000 tokens of a 70B model on 3,958 TFLOP/s at 28%, about 0.505 s. At
        # utilisation 1 a left-out utilisation is invisible: 0.999 and 0.9 show it; one token is tried too.
        "ttft_seconds", "ttft",
        worked=[dict(n_params=70e9, prompt_len=4000, peak_flops=3.958e15, utilisation=0.28)],
        edges=[Cases("full_and_near_full_utilisation", [
            dict(n_params=8e9, prompt_len=n, peak_flops=1.979e15, utilisation=u)
            for n, u in ((2048, 1.0), (2048, 0.999), (1, 0.9), (1, 1.0), (3, 0.45))
        ])],
        generated=test_ttft_generated,
        keywords=[dict(utilisation=0.5, peak_flops=989e12, prompt_len=1200, n_params=13e9)],
    ),
    FunctionQuestion(
        # The notebook's example: Llama-3-70B's shape, BF16 cache, 4,000 positions: 1.31e9 bytes. One position, one
        # layer, one KV head, 1 byte per value: each hides a slip, so each is varied on its own.
        "kv_bytes_written", "kv",
        worked=[dict(prompt_len=4000, n_layers=80, n_kv_heads=8, head_dim=128, bytes_per_value=2)],
        edges=[Cases("edges", [
            dict(zip(KV_SHAPE, case))
            for case in (
                (1, 32, 8, 128, 2), (2, 32, 8, 128, 2), (4096, 1, 8, 128, 2), (4096, 3, 8, 128, 2),
                (4096, 32, 1, 128, 2), (4096, 32, 8, 128, 1), (4096, 32, 8, 128, 4), (1, 1, 1, 64, 1),
            )
        ])],
        generated=test_kv_generated,
        keywords=[dict(bytes_per_value=1, head_dim=128, n_kv_heads=8, n_layers=126, prompt_len=999)],
    ),
])
