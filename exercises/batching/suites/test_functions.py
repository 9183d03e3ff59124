"""batch_step_seconds, fleet_tokens_per_s, in_flight: a batched step's time, the fleet's rate, Little's law.

Each check calls the learner's function and compares it with the spec (conftest.check_number); a wrong answer is
called once more on the function's probe, so that a slip is named only when it explains both results. Inputs
cover each spec's special points: a batch of 1 (where "one cache only" and "the weights per sequence" are
invisible), 2 and 3, a context of 1 token, weights far larger and far smaller than the caches, and a latency of
1 s (where rate x latency and rate / latency coincide).
"""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes

WEIGHTS = magnitudes(8, 12)  # 100 MB .. 1 TB of weights
PER_TOKEN = st.sampled_from([16_384, 65_536, 131_072, 163_840, 327_680, 524_288, 2_621_440])
CONTEXT = st.integers(1, 130_000)
BATCH = st.integers(1, 512)
BANDWIDTH = magnitudes(11, 14)  # 100 GB/s .. 100 TB/s
REPLICA_INPUTS = {"param_bytes": WEIGHTS, "kv": PER_TOKEN, "context_len": CONTEXT, "batch": BATCH, "bandwidth": BANDWIDTH}

#: The chapter's replica: Llama-3-70B's shape with a BF16 cache on two H200s (the notebook's worked example).
REPLICA = {"param_bytes": 70e9, "kv_bytes_per_token": 327_680, "context_len": 4000, "bandwidth": 9.6e12}
#: Llama-3-8B's shape on one H100, for the small batches and contexts.
SMALL = {"param_bytes": 8e9, "kv_bytes_per_token": 131_072}

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated("batch_step_seconds", examples=10, **REPLICA_INPUTS)
def test_step_generated(learner, batching, param_bytes, kv, context_len, batch, bandwidth):
    batching.check_number(
        learner, "batch_step_seconds", param_bytes=param_bytes, kv_bytes_per_token=kv, context_len=context_len,
        batch=batch, bandwidth=bandwidth,
    )


@generated("fleet_tokens_per_s", examples=10, **REPLICA_INPUTS)
def test_fleet_generated(learner, batching, param_bytes, kv, context_len, batch, bandwidth):
    batching.check_number(
        learner, "fleet_tokens_per_s", param_bytes=param_bytes, kv_bytes_per_token=kv, context_len=context_len,
        batch=batch, bandwidth=bandwidth,
    )


@generated("in_flight", examples=10, arrival_rate=st.floats(0.01, 5000.0), latency=st.floats(0.001, 600.0))
def test_in_flight_generated(learner, batching, arrival_rate, latency):
    batching.check_number(learner, "in_flight", arrival_rate=arrival_rate, latency=latency)


function_tests(globals(), "batching", [
    FunctionQuestion(
        # The notebook's example: 64 sequences of 4,000 tokens on the replica, 16.03 ms; and one sequence, 7.43 ms.
        # A batch of 1 hides the slips about the batch, a context of 1 those about the context: each is varied.
        "batch_step_seconds", "step",
        worked=[dict(**REPLICA, batch=batch) for batch in (64, 1)],
        edges=[Cases("small_batches_and_contexts", [
            dict(**SMALL, context_len=context_len, batch=batch, bandwidth=3.35e12)
            for context_len, batch in ((1, 1), (1, 2), (2, 1), (3, 3), (4096, 2), (4096, 5), (32_768, 1), (32_768, 16))
        ])],
        generated=test_step_generated,
        keywords=[dict(bandwidth=2.039e12, batch=12, context_len=777, kv_bytes_per_token=163_840, param_bytes=26e9)],
    ),
    FunctionQuestion(
        # The notebook's example: 3,993 tokens/s at a batch of 64, 134.6 at a batch of 1, 4,652 at 93. At a batch
        # of 1 the fleet's rate is one user's: 2 and 3 separate them.
        "fleet_tokens_per_s", "fleet",
        worked=[dict(**REPLICA, batch=batch) for batch in (64, 1, 93)],
        edges=[Cases("small_batches", [
            dict(**SMALL, context_len=2048, batch=batch, bandwidth=3.35e12) for batch in (1, 2, 3, 250)
        ])],
        generated=test_fleet_generated,
        keywords=[dict(bandwidth=5.3e12, batch=40, context_len=8192, kv_bytes_per_token=327_680, param_bytes=140e9)],
    ),
    FunctionQuestion(
        # The notebook's example: 8 requests/s for 10.48 s each, 83.84 in flight; and 10 for 10.5, 105. At a latency
        # of 1 s multiplying and dividing agree: 0.25 s and 2 s separate them; a result that is not a whole number
        # shows a rounding.
        "in_flight", "in_flight",
        worked=[dict(arrival_rate=8, latency=10.48), dict(arrival_rate=10, latency=10.5)],
        edges=[Cases("at_one_second_and_below", [
            dict(arrival_rate=rate, latency=latency)
            for rate, latency in ((3, 1.0), (3, 0.25), (3, 2.0), (0.5, 7.0), (12.5, 0.37))
        ])],
        generated=test_in_flight_generated,
        keywords=[dict(latency=2.72, arrival_rate=11.7)],
    ),
])
