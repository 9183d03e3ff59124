"""kv_bytes_per_token, kv_budget_bytes, max_tokens, max_sequences, kv_step_seconds: the KV cache's arithmetic.

Each check calls the learner's function and compares it with the spec (conftest.check_number); a wrong answer is
called again on the function's probes, so that a slip is named only when it explains every result. Inputs cover
every special point of each spec and its neighbourhood: one layer, one KV head, 1 byte per value (where a left-out
factor is invisible); no reserve, weights that exactly fill the usable memory and weights that do not fit (the
0.0 floor); budgets that hold an exact number of tokens or sequences, one byte short of it, and fractions either
side of a half (round, ceil and floor differ); a context of 0 and 1.
"""

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes

#: Bytes of K and V per token of real shapes (Llama-3-8B and -70B in BF16, Llama-2-7B in BF16) and others.
PER_TOKEN = st.one_of(st.sampled_from([131_072, 327_680, 524_288, 65_536, 163_840]), st.integers(4_096, 4_000_000))
BUDGET = st.integers(10**8, 2 * 10**12)  # whole bytes: 100 MB .. 2 TB
CONTEXT = st.integers(1, 200_000)
SHAPE = ("n_layers", "n_kv_heads", "head_dim", "bytes_per_value")
TOKEN = 4096  # a toy cache's bytes a token, so that every budget is shown to the byte
SEQ_TOKEN, SEQ_CONTEXT = 512, 16  # a toy cache for sequences: 512 bytes a token, 16-token sequences
SEQ = SEQ_TOKEN * SEQ_CONTEXT

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated(
    "kv_bytes_per_token",
    examples=10,
    n_layers=st.integers(1, 128),
    n_kv_heads=st.integers(1, 128),
    head_dim=st.sampled_from([64, 80, 96, 128, 256]),
    bytes_per_value=st.sampled_from([0.5, 1, 2, 4]),
)
def test_per_token_generated(learner, kv, n_layers, n_kv_heads, head_dim, bytes_per_value):
    kv.check_number(
        learner,
        "kv_bytes_per_token",
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        head_dim=head_dim,
        bytes_per_value=bytes_per_value,
    )


@generated(
    "kv_budget_bytes",
    examples=10,
    memory_bytes=magnitudes(10, 12),
    reserved_fraction=st.floats(0.0, 0.5),
    share=st.one_of(st.floats(0.0, 0.95), st.floats(1.05, 3.0)),
)
def test_budget_generated(learner, kv, memory_bytes, reserved_fraction, share):
    """The weights a share of the usable memory: below it (room left, never so close that the subtraction is all
    rounding) or above it (no room)."""
    param_bytes = memory_bytes * (1 - reserved_fraction) * share
    kv.check_number(
        learner,
        "kv_budget_bytes",
        memory_bytes=memory_bytes,
        param_bytes=param_bytes,
        reserved_fraction=reserved_fraction,
    )


@generated("max_tokens", examples=10, budget_bytes=BUDGET, kv_bytes_per_token=PER_TOKEN)
def test_tokens_generated(learner, kv, budget_bytes, kv_bytes_per_token):
    kv.check_number(learner, "max_tokens", budget_bytes=budget_bytes, kv_bytes_per_token=kv_bytes_per_token)


@generated("max_sequences", examples=10, budget_bytes=BUDGET, kv_bytes_per_token=PER_TOKEN, context_len=CONTEXT)
def test_sequences_generated(learner, kv, budget_bytes, kv_bytes_per_token, context_len):
    kv.check_number(
        learner,
        "max_sequences",
        budget_bytes=budget_bytes,
        kv_bytes_per_token=kv_bytes_per_token,
        context_len=context_len,
    )


@generated(
    "kv_step_seconds", examples=10, param_bytes=magnitudes(8, 12), kv_bytes_per_token=PER_TOKEN, context_len=CONTEXT,
    bandwidth=magnitudes(10, 13),
)
def test_step_generated(learner, kv, param_bytes, kv_bytes_per_token, context_len, bandwidth):
    kv.check_number(
        learner,
        "kv_step_seconds",
        param_bytes=param_bytes,
        kv_bytes_per_token=kv_bytes_per_token,
        context_len=context_len,
        bandwidth=bandwidth,
    )


function_tests(globals(), "kv", [
    FunctionQuestion(
        # The notebook's example: Llama-3-70B's shape, BF16 cache, 327,680 bytes per token. One layer, one KV head,
        # 1 byte per value: each hides a slip, so each is varied on its own.
        "kv_bytes_per_token", "per_token",
        worked=[dict(n_layers=80, n_kv_heads=8, head_dim=128, bytes_per_value=2)],
        edges=[Cases("edges", [
            dict(zip(SHAPE, case, strict=True))
            for case in (
                (1, 8, 128, 2), (3, 8, 128, 2), (32, 1, 128, 2), (32, 8, 128, 1), (32, 8, 128, 4), (1, 1, 64, 1),
                (32, 32, 128, 2), (40, 8, 128, 0.5),
            )
        ])],
        generated=test_per_token_generated,
        keywords=[dict(bytes_per_value=1, head_dim=128, n_kv_heads=8, n_layers=126)],
    ),
    FunctionQuestion(
        # The notebook's example: 282 GB, 70 GB of weights, 10% reserved: 183.8 GB. No reserve; weights that exactly
        # fill the usable memory (a quarter reserved, exact in binary); weights that do not fit, by a little and by a
        # lot (the budget is 0.0, never negative); no weights at all.
        "kv_budget_bytes", "budget",
        worked=[dict(memory_bytes=282e9, param_bytes=70e9, reserved_fraction=0.1)],
        edges=[Cases("edges", [
            dict(memory_bytes=memory, param_bytes=params, reserved_fraction=reserved)
            for memory, params, reserved in (
                (80e9, 16e9, 0.0), (80e9, 60e9, 0.25), (80e9, 61e9, 0.25), (80e9, 140e9, 0.1), (141e9, 0.0, 0.1),
                (24e9, 14e9, 0.05),
            )
        ], weight=2)],
        generated=test_budget_generated,
        keywords=[dict(reserved_fraction=0.08, param_bytes=16e9, memory_bytes=80e9)],
    ),
    FunctionQuestion(
        # The notebook's example: 183.8 GB of budget at 327,680 bytes per token, 560,913 tokens. A budget that holds
        # exactly 100 tokens, one byte less, fractions 0.25 and 0.75, and less than one token.
        "max_tokens", "tokens",
        worked=[dict(budget_bytes=183.8e9, kv_bytes_per_token=327_680)],
        edges=[Cases("exact_and_fractions", [
            dict(budget_bytes=budget, kv_bytes_per_token=TOKEN)
            for budget in (
                100 * TOKEN, 100 * TOKEN - 1, 100 * TOKEN + TOKEN // 4, 100 * TOKEN + 3 * TOKEN // 4, TOKEN - 1, 0
            )
        ])],
        generated=test_tokens_generated,
        keywords=[dict(kv_bytes_per_token=163_840, budget_bytes=45_000_000_000)],
    ),
    FunctionQuestion(
        # The notebook's example: 183.8 GB, 327,680 bytes per token, 8,192-token sequences: 68 fit (68.47). Exactly
        # 7 sequences, one byte short of 7, 7.25 and 7.75 (round and ceil differ from floor), a context of one token,
        # and a context longer than the whole budget holds (0 sequences).
        "max_sequences", "sequences",
        worked=[dict(budget_bytes=183.8e9, kv_bytes_per_token=327_680, context_len=8192)],
        edges=[Cases("exact_and_fractions", [
            dict(budget_bytes=budget, kv_bytes_per_token=SEQ_TOKEN, context_len=context)
            for budget, context in (
                (7 * SEQ, SEQ_CONTEXT), (7 * SEQ - 1, SEQ_CONTEXT), (7 * SEQ + SEQ // 4, SEQ_CONTEXT),
                (7 * SEQ + 3 * SEQ // 4, SEQ_CONTEXT), (7 * SEQ, 1), (SEQ - 1, SEQ_CONTEXT),
            )
        ], weight=2)],
        generated=test_sequences_generated,
        keywords=[dict(context_len=32_768, kv_bytes_per_token=131_072, budget_bytes=56_000_000_001)],
    ),
    FunctionQuestion(
        # The notebook's example: 70 GB of weights and 8,192 positions of 327,680 bytes at 9.6 TB/s, 7.57 ms. No
        # context yet (only the weights are read), one position, and the context where the KV equals the weights.
        "kv_step_seconds", "step",
        worked=[dict(param_bytes=70e9, kv_bytes_per_token=327_680, context_len=8192, bandwidth=9.6e12)],
        edges=[Cases("short_contexts_and_even", [
            dict(param_bytes=70e9, kv_bytes_per_token=327_680, context_len=context_len, bandwidth=9.6e12)
            for context_len in (0, 1, 2, 213_623)
        ])],
        generated=test_step_generated,
        keywords=[dict(bandwidth=3.35e12, context_len=12_000, kv_bytes_per_token=131_072, param_bytes=16e9)],
    ),
])
