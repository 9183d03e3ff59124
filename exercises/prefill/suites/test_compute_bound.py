"""is_compute_bound: prefill_intensity compared with ridge_point, strictly greater.

The ridge point itself is the spec's special point: on a chip whose ridge is exactly 400 FLOPs per byte (ints,
so every way of writing the comparison is exact), prompts just below, at and just above it are tried for three
precisions; generated chips then try prompts one or two tokens either side of their own threshold.
"""

import math

from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes

H200 = {"bytes_per_param": 1, "peak_flops": 1.979e15, "bandwidth": 4.8e12}


def _at_the_ridge_point(prefill):
    """Intensity equal to the ridge point is not yet compute-bound; one token more is."""
    return [
        dict(prompt_len=prompt_len, bytes_per_param=b, peak_flops=prefill.PEAK_400, bandwidth=prefill.BW_400)
        for b, at in ((1, 200), (2, 400), (0.5, 100))
        for prompt_len in (at - 1, at, at + 1)
    ]


@generated(
    "is_compute_bound",
    examples=10,
    peak_flops=magnitudes(13, 16),
    bandwidth=magnitudes(11, 13),
    bytes_per_param=st.sampled_from([0.5, 1, 2, 4]),
    side=st.sampled_from(["two below", "just below", "just above", "two above"]),
)
def test_near_the_threshold(learner, prefill, peak_flops, bandwidth, bytes_per_param, side):
    threshold = peak_flops / bandwidth * bytes_per_param / 2  # the prompt length whose intensity is the ridge
    below, above = math.floor(threshold), math.ceil(threshold)
    prompt_len = {"two below": below - 1, "just below": below, "just above": above, "two above": above + 1}[side]
    if abs(2 * prompt_len / bytes_per_param / (peak_flops / bandwidth) - 1) <= 1e-9:
        prompt_len -= 1  # a float tie: how the comparison is written could decide it (exact ties are tried above)
    prompt_len = max(prompt_len, 1)
    prefill.check_verdict(
        learner, prompt_len=prompt_len, bytes_per_param=bytes_per_param, peak_flops=peak_flops, bandwidth=bandwidth
    )


function_tests(globals(), "prefill", [
    FunctionQuestion(
        # The notebook's example: 4,000 tokens at FP8 on an H200 are compute-bound; one token is not.
        "is_compute_bound", "",
        worked=[dict(prompt_len=4000, **H200), dict(prompt_len=1, **H200)],
        edges=[Cases("at_the_ridge_point", _at_the_ridge_point, weight=2)],
        generated=test_near_the_threshold,
        keywords=[dict(bandwidth=3.35e12, peak_flops=989e12, bytes_per_param=2, prompt_len=296)],
        check="check_verdict",
        named=False,
    ),
])
