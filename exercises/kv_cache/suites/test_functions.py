"""kv_bytes_per_token, kv_budget_bytes, max_tokens, max_sequences, kv_step_seconds: the KV cache's arithmetic.

Each check calls the learner's function and compares it with the spec (conftest.check_number); a wrong answer is
called again on the function's probes, so that a slip is named only when it explains every result. Inputs cover
every special point of each spec and its neighbourhood: one layer, one KV head, 1 byte per value (where a left-out
factor is invisible); no reserve, weights that exactly fill the usable memory and weights that do not fit (the
0.0 floor); budgets that hold an exact number of tokens or sequences, one byte short of it, and fractions either
side of a half (round, ceil and floor differ); a context of 0 and 1.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, magnitudes, question

#: Bytes of K and V per token of real shapes (Llama-3-8B and -70B in BF16, Llama-2-7B in BF16) and others.
PER_TOKEN = st.one_of(st.sampled_from([131_072, 327_680, 524_288, 65_536, 163_840]), st.integers(4_096, 4_000_000))
BUDGET = st.integers(10**8, 2 * 10**12)  # whole bytes: 100 MB .. 2 TB
CONTEXT = st.integers(1, 200_000)

# -- kv_bytes_per_token ------------------------------------------------------------------------------------------


@question("kv_bytes_per_token")
def test_per_token_worked_example(learner, kv):
    """The notebook's example: Llama-3-70B's shape, BF16 cache, 327,680 bytes per token."""
    kv.check_number(learner, "kv_bytes_per_token", n_layers=80, n_kv_heads=8, head_dim=128, bytes_per_value=2)


@question("kv_bytes_per_token")
def test_per_token_edges(learner, kv):
    """One layer, one KV head, 1 byte per value: each hides a slip, so each is varied on its own."""
    for case in (
        (1, 8, 128, 2),
        (3, 8, 128, 2),
        (32, 1, 128, 2),
        (32, 8, 128, 1),
        (32, 8, 128, 4),
        (1, 1, 64, 1),
        (32, 32, 128, 2),
        (40, 8, 128, 0.5),
    ):
        args = dict(zip(("n_layers", "n_kv_heads", "head_dim", "bytes_per_value"), case, strict=True))
        kv.check_number(learner, "kv_bytes_per_token", **args)


@question("kv_bytes_per_token", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(
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


@question("kv_bytes_per_token")
def test_per_token_keywords(learner, kv):
    kv.check_number(
        learner, "kv_bytes_per_token", keywords=True, bytes_per_value=1, head_dim=128, n_kv_heads=8, n_layers=126
    )


# -- kv_budget_bytes ---------------------------------------------------------------------------------------------


@question("kv_budget_bytes")
def test_budget_worked_example(learner, kv):
    """The notebook's example: 282 GB, 70 GB of weights, 10% reserved: 183.8 GB."""
    kv.check_number(learner, "kv_budget_bytes", memory_bytes=282e9, param_bytes=70e9, reserved_fraction=0.1)


@question("kv_budget_bytes", weight=2)
def test_budget_edges(learner, kv):
    """No reserve; weights that exactly fill the usable memory (a quarter reserved, exact in binary); weights that
    do not fit, by a little and by a lot (the budget is 0.0, never negative); no weights at all."""
    for memory, params, reserved in (
        (80e9, 16e9, 0.0),
        (80e9, 60e9, 0.25),
        (80e9, 61e9, 0.25),
        (80e9, 140e9, 0.1),
        (141e9, 0.0, 0.1),
        (24e9, 14e9, 0.05),
    ):
        kv.check_number(learner, "kv_budget_bytes", memory_bytes=memory, param_bytes=params, reserved_fraction=reserved)


@question("kv_budget_bytes", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(
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


@question("kv_budget_bytes")
def test_budget_keywords(learner, kv):
    kv.check_number(
        learner, "kv_budget_bytes", keywords=True, reserved_fraction=0.08, param_bytes=16e9, memory_bytes=80e9
    )


# -- max_tokens --------------------------------------------------------------------------------------------------


@question("max_tokens")
def test_tokens_worked_example(learner, kv):
    """The notebook's example: 183.8 GB of budget at 327,680 bytes per token, 560,913 tokens."""
    kv.check_number(learner, "max_tokens", budget_bytes=183.8e9, kv_bytes_per_token=327_680)


@question("max_tokens")
def test_tokens_exact_and_fractions(learner, kv):
    """A budget that holds exactly 100 tokens, one byte less, fractions 0.25 and 0.75, and less than one token (a
    toy cache of 4,096 bytes a token, so that every budget is shown to the byte)."""
    per = 4096
    for budget in (100 * per, 100 * per - 1, 100 * per + per // 4, 100 * per + 3 * per // 4, per - 1, 0):
        kv.check_number(learner, "max_tokens", budget_bytes=budget, kv_bytes_per_token=per)


@question("max_tokens", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(budget_bytes=BUDGET, kv_bytes_per_token=PER_TOKEN)
def test_tokens_generated(learner, kv, budget_bytes, kv_bytes_per_token):
    kv.check_number(learner, "max_tokens", budget_bytes=budget_bytes, kv_bytes_per_token=kv_bytes_per_token)


@question("max_tokens")
def test_tokens_keywords(learner, kv):
    kv.check_number(learner, "max_tokens", keywords=True, kv_bytes_per_token=163_840, budget_bytes=45_000_000_000)


# -- max_sequences -----------------------------------------------------------------------------------------------


@question("max_sequences")
def test_sequences_worked_example(learner, kv):
    """The notebook's example: 183.8 GB, 327,680 bytes per token, 8,192-token sequences: 68 fit (68.47)."""
    kv.check_number(learner, "max_sequences", budget_bytes=183.8e9, kv_bytes_per_token=327_680, context_len=8192)


@question("max_sequences", weight=2)
def test_sequences_exact_and_fractions(learner, kv):
    """Exactly 7 sequences, one byte short of 7, 7.25 and 7.75 (round and ceil differ from floor), a context of
    one token, and a context longer than the whole budget holds (0 sequences). A toy cache (512 bytes a token,
    16-token sequences), so that every budget is shown to the byte."""
    per, ctx = 512, 16
    seq = per * ctx
    for budget, context in (
        (7 * seq, ctx),
        (7 * seq - 1, ctx),
        (7 * seq + seq // 4, ctx),
        (7 * seq + 3 * seq // 4, ctx),
        (7 * seq, 1),
        (seq - 1, ctx),
    ):
        kv.check_number(learner, "max_sequences", budget_bytes=budget, kv_bytes_per_token=per, context_len=context)


@question("max_sequences", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(budget_bytes=BUDGET, kv_bytes_per_token=PER_TOKEN, context_len=CONTEXT)
def test_sequences_generated(learner, kv, budget_bytes, kv_bytes_per_token, context_len):
    kv.check_number(
        learner,
        "max_sequences",
        budget_bytes=budget_bytes,
        kv_bytes_per_token=kv_bytes_per_token,
        context_len=context_len,
    )


@question("max_sequences")
def test_sequences_keywords(learner, kv):
    kv.check_number(
        learner,
        "max_sequences",
        keywords=True,
        context_len=32_768,
        kv_bytes_per_token=131_072,
        budget_bytes=56_000_000_001,
    )


# -- kv_step_seconds ---------------------------------------------------------------------------------------------


@question("kv_step_seconds")
def test_step_worked_example(learner, kv):
    """The notebook's example: 70 GB of weights and 8,192 positions of 327,680 bytes at 9.6 TB/s, 7.57 ms."""
    kv.check_number(
        learner, "kv_step_seconds", param_bytes=70e9, kv_bytes_per_token=327_680, context_len=8192, bandwidth=9.6e12
    )


@question("kv_step_seconds")
def test_step_short_contexts_and_even(learner, kv):
    """No context yet (only the weights are read), one position, and the context where the KV equals the weights."""
    for context_len in (0, 1, 2, 213_623):
        kv.check_number(
            learner,
            "kv_step_seconds",
            param_bytes=70e9,
            kv_bytes_per_token=327_680,
            context_len=context_len,
            bandwidth=9.6e12,
        )


@question("kv_step_seconds", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(param_bytes=magnitudes(8, 12), kv_bytes_per_token=PER_TOKEN, context_len=CONTEXT, bandwidth=magnitudes(10, 13))
def test_step_generated(learner, kv, param_bytes, kv_bytes_per_token, context_len, bandwidth):
    kv.check_number(
        learner,
        "kv_step_seconds",
        param_bytes=param_bytes,
        kv_bytes_per_token=kv_bytes_per_token,
        context_len=context_len,
        bandwidth=bandwidth,
    )


@question("kv_step_seconds")
def test_step_keywords(learner, kv):
    kv.check_number(
        learner,
        "kv_step_seconds",
        keywords=True,
        bandwidth=3.35e12,
        context_len=12_000,
        kv_bytes_per_token=131_072,
        param_bytes=16e9,
    )
