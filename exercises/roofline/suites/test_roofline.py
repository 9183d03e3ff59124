"""attainable_flops, step_seconds, decode_intensity, crossover_batch: the roofline and where decode meets it.

Each check calls the learner's function and compares it with the spec (conftest.check_number); a wrong answer is
explained from the function's panel. Inputs cover both sides of the ridge point and the ridge itself (where min
and max, or a sum and a max, differ or coincide), a zero count of FLOPs or bytes, batch 1, and bytes per
parameter on both sides of 1 (where a left-out or multiplied factor is invisible at 1).
"""

from hypothesis import example
from hypothesis import strategies as st

from grader.checks import Cases, FunctionQuestion, function_tests, generated
from grader.testing import magnitudes

PEAK = magnitudes(13, 16)  # 10 TFLOP/s .. 10 PFLOP/s
BANDWIDTH = magnitudes(10, 13)  # 10 GB/s .. 10 TB/s
BYTES = st.sampled_from([0.25, 0.5, 0.625, 1, 2, 4])
REPLICA = {"peak_flops": 3.958e15, "bandwidth": 9.6e12}  # two H200 SXM, dense FP8
RIDGE_400 = {"peak_flops": 10**15, "bandwidth": 2.5e12}  # a ridge of exactly 400 FLOPs per byte

# The generated tests' own source seeds their examples (see grader.checks.generated): keep each one as written.


@generated("attainable_flops", examples=10, intensity=magnitudes(0, 5), peak_flops=PEAK, bandwidth=BANDWIDTH)
def test_attainable_generated(learner, roof, intensity, peak_flops, bandwidth):
    roof.check_number(learner, "attainable_flops", intensity=intensity, peak_flops=peak_flops, bandwidth=bandwidth)


@generated(
    "step_seconds", examples=10, flops=magnitudes(9, 16), bytes_moved=magnitudes(8, 12), peak_flops=PEAK,
    bandwidth=BANDWIDTH,
)
def test_step_generated(learner, roof, flops, bytes_moved, peak_flops, bandwidth):
    roof.check_number(
        learner, "step_seconds", flops=flops, bytes_moved=bytes_moved, peak_flops=peak_flops, bandwidth=bandwidth
    )


@generated("decode_intensity", examples=10, batch=st.integers(1, 4096), bytes_per_param=BYTES)
@example(batch=37, bytes_per_param=4)  # not a whole number: a `//` fails here whatever examples are drawn
def test_intensity_generated(learner, roof, batch, bytes_per_param):
    roof.check_number(learner, "decode_intensity", batch=batch, bytes_per_param=bytes_per_param)


@generated("crossover_batch", examples=10, peak_flops=PEAK, bandwidth=magnitudes(11, 13), bytes_per_param=BYTES)
def test_crossover_generated(learner, roof, peak_flops, bandwidth, bytes_per_param):
    roof.check_number(
        learner, "crossover_batch", peak_flops=peak_flops, bandwidth=bandwidth, bytes_per_param=bytes_per_param
    )


function_tests(globals(), "roof", [
    FunctionQuestion(
        # The notebook's replica: decode at batch 1 and 32 (on the slope), a 4,000-token prefill (on the roof).
        # Below, at and above a ridge of exactly 400 FLOPs per byte, and far below it (a fraction of a FLOP).
        "attainable_flops", "attainable",
        worked=[dict(intensity=intensity, **REPLICA) for intensity in (2, 64, 8000)],
        edges=[Cases("around_the_ridge", [
            dict(intensity=intensity, **RIDGE_400) for intensity in (0.25, 1, 399, 400, 401, 10_000)
        ])],
        generated=test_attainable_generated,
        keywords=[dict(bandwidth=3.35e12, peak_flops=1.979e15, intensity=50)],
    ),
    FunctionQuestion(
        # The notebook's decode step of 32 (memory-bound, 7.29 ms) and its 4,032-token pass (compute-bound). No
        # FLOPs (a pure copy), no bytes (all in registers), and both times equal: where max, sum and each side
        # alone differ or agree.
        "step_seconds", "step",
        worked=[dict(flops=flops, bytes_moved=70e9, **REPLICA) for flops in (4.48e12, 5.6448e14)],
        edges=[Cases("one_side_zero_and_a_tie", [
            dict(flops=flops, bytes_moved=bytes_moved, **RIDGE_400)
            for flops, bytes_moved in ((0, 5e9), (3e12, 0), (1e12, 2.5e9), (3e14, 7e10), (1e10, 7e10))
        ])],
        generated=test_step_generated,
        keywords=[dict(bandwidth=3.35e12, peak_flops=1.979e15, bytes_moved=8e9, flops=2e14)],
    ),
    FunctionQuestion(
        # The notebook's replica: batch 1 and 32 in FP8, 2 and 64 FLOPs per byte. Batch 1 hides a left-out batch,
        # 1 byte a left-out or multiplied b; a 5-bit model gives no whole number.
        "decode_intensity", "intensity",
        worked=[dict(batch=batch, bytes_per_param=1) for batch in (1, 32)],
        edges=[Cases("batches_and_precisions", [
            dict(batch=batch, bytes_per_param=b)
            for batch, b in ((1, 2), (2, 0.5), (3, 2), (3, 4), (64, 2), (100, 0.5), (101, 0.625), (7, 1))
        ])],
        generated=test_intensity_generated,
        keywords=[dict(bytes_per_param=2, batch=48)],
    ),
    FunctionQuestion(
        # The notebook's replica in FP8: about 206 sequences. At 1 byte a left-out b is invisible and at 2 bytes the
        # ridge itself is right: 0.5, 4 and 0.625 show both; a crossover that is not a whole number shows rounding.
        "crossover_batch", "crossover",
        worked=[dict(bytes_per_param=1, **REPLICA)],
        edges=[Cases("precisions", [
            dict(peak_flops=1.979e15, bandwidth=3.35e12, bytes_per_param=b) for b in (0.5, 2, 4, 0.625)
        ])],
        generated=test_crossover_generated,
        keywords=[dict(bytes_per_param=2, bandwidth=2.039e12, peak_flops=312e12)],
    ),
])
