"""forward_seconds, itl_during_prefill, prefill_iterations: one pass for both phases, and a prefill beside decode.

While each function is tested the earlier ones are the reference's (one bug costs once), so these checks see only
what the function itself adds: the pass's FLOPs and bytes; the tokens one iteration carries (the batch's decode
tokens plus at most one chunk, never more than the prompt); and a count rounded up. Inputs cover memory- and
compute-bound passes, a chunk larger than the prompt, a chunk that divides the prompt exactly and one that does
not, and a single token.
"""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes

N_PARAMS = magnitudes(8, 12)  # 100 million .. 1 trillion parameters
BYTES = st.sampled_from([0.5, 1, 2, 4])
PEAK = magnitudes(13, 16)
BANDWIDTH = magnitudes(11, 13)
REPLICA = {"peak_flops": 3.958e15, "bandwidth": 9.6e12}  # two H200 SXM, dense FP8
MODEL = {"n_params": 70e9, "bytes_per_param": 1}

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated(
    "forward_seconds", examples=10, n_params=N_PARAMS, bytes_per_param=BYTES, n_tokens=st.integers(1, 100_000),
    peak_flops=PEAK, bandwidth=BANDWIDTH,
)
def test_forward_generated(learner, roof, n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    roof.check_number(
        learner, "forward_seconds", n_params=n_params, bytes_per_param=bytes_per_param, n_tokens=n_tokens,
        peak_flops=peak_flops, bandwidth=bandwidth,
    )


@generated(
    "itl_during_prefill",
    examples=10,
    n_params=N_PARAMS,
    bytes_per_param=BYTES,
    batch=st.integers(1, 1024),
    prefill_tokens=st.integers(1, 100_000),
    chunk_tokens=st.integers(1, 16_384),
    peak_flops=PEAK,
    bandwidth=BANDWIDTH,
)
def test_itl_generated(learner, roof, n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops,
                       bandwidth):
    roof.check_number(
        learner, "itl_during_prefill", n_params=n_params, bytes_per_param=bytes_per_param, batch=batch,
        prefill_tokens=prefill_tokens, chunk_tokens=chunk_tokens, peak_flops=peak_flops, bandwidth=bandwidth,
    )


@generated(
    "prefill_iterations", examples=10, prefill_tokens=st.integers(1, 1_000_000), chunk_tokens=st.integers(1, 16_384)
)
def test_iterations_generated(learner, roof, prefill_tokens, chunk_tokens):
    roof.check_count(learner, prefill_tokens=prefill_tokens, chunk_tokens=chunk_tokens)


function_tests(globals(), "roof", [
    FunctionQuestion(
        # The notebook's replica: decode of 32 (memory-bound), a 4,000-token prefill and a 544-token chunk pass. One
        # token (a left-out n_tokens is invisible), 1 byte (a left-out b is): each varied on its own, on both sides
        # of the crossover.
        "forward_seconds", "forward",
        worked=[dict(n_tokens=n_tokens, **MODEL, **REPLICA) for n_tokens in (32, 4000, 544)],
        edges=[Cases("one_token_and_precisions", [
            dict(n_params=8e9, bytes_per_param=b, n_tokens=n_tokens, peak_flops=1.979e15, bandwidth=3.35e12)
            for n_tokens, b in ((1, 1), (1, 2), (2, 0.5), (300, 2), (3000, 2), (3000, 0.5), (150, 4))
        ])],
        generated=test_forward_generated,
        keywords=[dict(bandwidth=3.35e12, peak_flops=1.979e15, n_tokens=700, bytes_per_param=2, n_params=13e9)],
    ),
    FunctionQuestion(
        # The notebook's replica, batch 32, 4,000 tokens: chunks of 128 (memory-bound) and 512, and no chunking. A
        # chunk larger than the prompt carries only the prompt; equal to it, and one token either side; a prompt of
        # one token; a batch of one.
        "itl_during_prefill", "itl",
        worked=[
            dict(batch=32, prefill_tokens=4000, chunk_tokens=chunk, **MODEL, **REPLICA) for chunk in (128, 512, 4000)
        ],
        edges=[Cases("chunk_against_prompt", [
            dict(batch=batch, prefill_tokens=prompt, chunk_tokens=chunk, **MODEL, **REPLICA)
            for batch, prompt, chunk in (
                (32, 300, 512), (32, 512, 512), (32, 511, 512), (32, 513, 512), (64, 1, 256), (1, 2048, 1024),
                (200, 5000, 8192),
            )
        ])],
        generated=test_itl_generated,
        keywords=[dict(
            bandwidth=3.35e12, peak_flops=1.979e15, chunk_tokens=256, prefill_tokens=6100, batch=96, bytes_per_param=1,
            n_params=32e9,
        )],
    ),
    FunctionQuestion(
        # The notebook's 4,000-token prompt: chunks of 128, 512 and the whole prompt. A chunk that divides the prompt
        # exactly, one token over and under, a chunk larger than the prompt, and chunks of one token.
        "prefill_iterations", "iterations",
        worked=[dict(prefill_tokens=4000, chunk_tokens=chunk) for chunk in (128, 512, 4000)],
        edges=[Cases("exact_and_not", [
            dict(prefill_tokens=prompt, chunk_tokens=chunk)
            for prompt, chunk in ((4096, 512), (4097, 512), (4095, 512), (100, 1000), (1, 1), (7, 1), (1, 64), (1000, 3))
        ])],
        generated=test_iterations_generated,
        keywords=[dict(chunk_tokens=2048, prefill_tokens=10_000)],
        check="check_count",
        named=False,
    ),
])
