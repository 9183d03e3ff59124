"""max_batch_for_itl: the largest whole batch whose memory-bound step meets the ITL target, 0 when none does.

The spec's special points are the ties (a step exactly at the target meets it), the fractions (round down) and
the targets no batch meets (0, never 1 or a negative number). The ties are tried on a replica of small dyadic
numbers, on which every way of writing the formula computes exactly; generated replicas then try targets that
fit a non-whole number of sequences, well away from a tie, so that float rounding cannot decide the answer.
"""

import math

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes


def _panel(batching, fits):
    weights, per_token, context, bandwidth = batching.PANEL_REPLICA
    return {
        "param_bytes": weights, "kv_bytes_per_token": per_token, "context_len": context,
        "itl_target": batching.panel_target(fits), "bandwidth": bandwidth,
    }


def _fitting(*fits):
    """The panel's replica, at targets that fit these numbers of sequences."""
    return lambda batching: [_panel(batching, f) for f in fits]


@st.composite
def replicas(draw):
    """A replica and an ITL target at which a number of sequences fits that is at least 0.01 from a whole one, so that
    float rounding cannot decide the answer, and some of them below 0 (no batch meets the target). Drawn directly,
    rejecting nothing: a property that rejects examples (``assume``) is drawn again by hypothesis's engine for every
    learner (grader/suites/replay.py), which cost this lesson 15-20 ms of each notebook's grading.

    The fit computed back from the float target stays within ~1e-8 of ``fits`` (the few roundings that make the
    target, each 2**-53 of at most ~3e13 bytes, over at least 16,384 bytes of one position's cache; 1.03e-8 at worst
    in 300,000 random draws across these ranges), far inside the 0.01 kept from a tie."""
    param_bytes = draw(magnitudes(8, 12))
    kv = draw(st.sampled_from([16_384, 65_536, 131_072, 163_840, 327_680, 524_288]))
    context_len = draw(st.integers(1, 130_000))
    bandwidth = draw(magnitudes(11, 14))
    lowest = math.floor(-param_bytes / (context_len * kv)) + 1  # fewer would need a target of no time at all
    fits = draw(st.integers(max(-5, lowest), 399)) + draw(st.floats(0.01, 0.99))
    target = (param_bytes + fits * context_len * kv) / bandwidth
    return {
        "param_bytes": param_bytes, "kv_bytes_per_token": kv, "context_len": context_len, "itl_target": target,
        "bandwidth": bandwidth,
    }


@generated("max_batch_for_itl", examples=10, replica=replicas())
def test_generated(learner, batching, replica):
    batching.check_count(learner, **replica)


function_tests(globals(), "batching", [
    FunctionQuestion(
        # The notebook's example: 93 sequences of 4,000 tokens meet 20 ms on the replica; at 7 ms none does. A step
        # that takes exactly the target meets it: 90, 7 and 1 sequences fill a step exactly. Fractions round down.
        # Not even one sequence fits (0.75, 0.25), exactly the weights fit (0), or not even those (-0.5, -2.5).
        "max_batch_for_itl", "",
        worked=[
            dict(param_bytes=70e9, kv_bytes_per_token=327_680, context_len=4000, itl_target=target, bandwidth=9.6e12)
            for target in (0.020, 0.007)
        ],
        edges=[
            Cases("at_the_target_exactly", _fitting(90, 7, 1), weight=2),
            Cases("fractions_round_down", _fitting(21.25, 24.625, 1.75)),
            Cases("when_no_batch_meets_the_target", _fitting(0.75, 0.25, 0, -0.5, -2.5), weight=2),
        ],
        generated=test_generated,
        keywords=[dict(
            bandwidth=3.35e12, itl_target=0.025, context_len=8192, kv_bytes_per_token=131_072, param_bytes=8e9
        )],
        check="check_count",
        named=False,
    ),
])
