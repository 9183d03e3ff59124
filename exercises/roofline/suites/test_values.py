"""By-hand values (Part 1: a 32e9-parameter FP8 model on one H100 SXM) and the three choices.

The feedback never states a by-hand answer. Each question's known slips are far apart (more than 0.4%: a test
of the lesson checks it), so the one within 0.2% of the learner's number is named; slips that give the same
number are named together, in one sentence.
"""

from grader.testing import question

N, B, L, C = 32e9, 128, 6000, 256
PEAK = 3958e12 / 2  # the H100 SXM datasheet's FP8 figure is with sparsity
BANDWIDTH = 3.35e12
READ = N * 1 / BANDWIDTH  # seconds to read the FP8 weights once


def _pass_ms(tokens: int, peak: float = PEAK) -> float:
    return max(2 * N * tokens / peak, READ) * 1e3


CROSSOVER = PEAK / BANDWIDTH * 1 / 2
SPIKE_MS = _pass_ms(B + L)
CHUNK_MS = _pass_ms(B + C)

KNOWN = {
    "crossover_h100": [
        ("exactly twice, what two slips give: the 3,958 teraFLOPS used as is (it is with sparsity; dense FP8 is "
         "half of it), or the ridge point itself where decode's intensity 2B / b equals it at ridge x b / 2",
         2 * CROSSOVER),
        ("exactly half, what two slips give: the peak halved twice (1,979 is already the dense rate), or the BF16 "
         "rate where the math is FP8", CROSSOVER / 2),
        ("the equation solved upside down (ridge x 2 / b): 2B / b = ridge gives B = ridge x b / 2", 4 * CROSSOVER),
        ("the worked example's replica (two H200s, 412 x 1 / 2): this question is about one H100",
         3.958e15 / 9.6e12 / 2),
        ("the bytes counted as bits (8 per FP8 weight): FP8 is 1 byte per parameter", 8 * CROSSOVER),
        ("the ridge point upside down (bandwidth over peak): the ridge is FLOP/s over bytes per second",
         BANDWIDTH / PEAK / 2),
    ],
    "spike_ms": [
        ("the prefill alone: the 128 decode tokens share the pass, so it carries 6,128 tokens", _pass_ms(L)),
        ("the two times added: with the overlap the roofline assumes, the larger of the FLOPs time and the "
         "weight-read time sets the pass", (2 * N * (B + L) / PEAK + READ) * 1e3),
        ("the prefill and the decode step timed as two passes: they share one pass, which reads the weights once",
         _pass_ms(L) + _pass_ms(B)),
        ("exactly half, what two slips give: the 3,958 teraFLOPS used as is (it is with sparsity; dense FP8 is "
         "half of it), or 1 FLOP per parameter per token where it is 2", _pass_ms(B + L, 2 * PEAK)),
        ("exactly twice, what two slips give: the peak halved twice (1,979 is already dense), or the BF16 rate "
         "where the math is FP8", _pass_ms(B + L, PEAK / 2)),
        ("an ordinary decode step, the time to read the weights: the 6,000 prompt tokens in the pass make it "
         "compute-bound", READ * 1e3),
        ("the time in seconds: the question asks for milliseconds (x 1000)", SPIKE_MS / 1e3),
    ],
    "chunk_ms": [
        ("the time to read the weights once, what three slips give: the 128 decode tokens left out of the pass "
         "(they share it with the chunk), an ordinary decode step, or the 3,958 teraFLOPS used as is (dense FP8 "
         "is half); with 384 tokens the pass is compute-bound", READ * 1e3),
        ("the two times added: with the overlap the roofline assumes, the larger of the FLOPs time and the "
         "weight-read time sets the pass", (2 * N * (B + C) / PEAK + READ) * 1e3),
        ("the decode step and the chunk timed as two passes: they share one pass, which reads the weights once",
         _pass_ms(B) + _pass_ms(C)),
        ("the whole 6,000-token prompt in the pass: with chunking each pass carries one chunk of 256 tokens",
         SPIKE_MS),
        ("exactly twice, what two slips give: the peak halved twice (1,979 is already dense), or the BF16 rate "
         "where the math is FP8", _pass_ms(B + C, PEAK / 2)),
        ("the time in seconds: the question asks for milliseconds (x 1000)", CHUNK_MS / 1e3),
    ],
}

VALUES = {
    "crossover_h100": (
        CROSSOVER, 2e-3, "the batch at which decode turns compute-bound",
        "The ridge point (the dense FP8 peak over the bandwidth) x bytes per parameter / 2.",
    ),
    "spike_ms": (
        SPIKE_MS, 2e-3, "the gap when the whole prefill shares the iteration, in ms",
        "One pass of 128 + 6,000 tokens: the larger of its FLOPs over the dense peak and its weight bytes over "
        "the bandwidth, then x 1000 for ms.",
    ),
    "chunk_ms": (
        CHUNK_MS, 2e-3, "the gap with 256-token chunks, in ms",
        "One pass of 128 + 256 tokens: the larger of its FLOPs over the dense peak and its weight bytes over the "
        "bandwidth, then x 1000 for ms.",
    ),
}


def _value(learner, roof, name):
    expected, rel, meaning, advice = VALUES[name]
    roof.expect_value(name, learner.value(name), expected, meaning=meaning, known=KNOWN[name], rel=rel, advice=advice)


@question("crossover_h100")
def test_crossover_h100(learner, roof):
    _value(learner, roof, "crossover_h100")


@question("spike_ms")
def test_spike_ms(learner, roof):
    _value(learner, roof, "spike_ms")


@question("chunk_ms")
def test_chunk_ms(learner, roof):
    _value(learner, roof, "chunk_ms")


# -- choices -------------------------------------------------------------------------------------------------------

#: Why each wrong option is wrong, keyed by the letter of the solution this was written against (used only while
#: the solution still gives that letter, so a reordered notebook falls back to the general hint).
WHY_NOT = {
    "answer_bigger_batch": ("C", {
        "A": "Below the crossover batch (about 206 here) a step's time is not set by its FLOPs: the arithmetic of "
             "64 sequences takes less time than reading the weights, and those are the same 70 GB.",
        "B": "Sharing the weight read among more sequences does not make the read shorter: the step still reads "
             "all 70 GB.",
        "D": "With the overlap the roofline assumes, the arithmetic runs while the weights stream in: the step "
             "takes the larger of the two times, not their sum.",
    }),
    "answer_small_chunks": ("A", {
        "B": "Below the crossover a pass's time is the weight read, whatever its tokens: halving the chunk does not "
             "halve the gap, and twice the iterations read the weights twice as often.",
        "C": "The chunk's tokens are not what is read from memory: every pass reads all 70 GB of weights, whatever "
             "the chunk size.",
        "D": "A memory-bound pass takes the weight-read time, which is shorter than a compute-bound pass, not "
             "longer; and more iterations mean more weight reads before the first token.",
    }),
    "answer_fp8_crossover": ("B", {
        "A": "The ridge point moves too: FP8 math runs at twice BF16's peak, so the ridge doubles to 412 and 300 "
             "FLOPs per byte is still below it.",
        "C": "FP8 weights take 1 byte each, BF16 2: the 70 GB read per step is half of the 140 GB, so each step "
             "takes about half as long.",
        "D": "The H200's dense FP8 peak (1,979 TFLOP/s a GPU) is twice its dense BF16 peak (989.5): halving the "
             "sparse figures halves both.",
    }),
}

GENERAL = {
    "answer_bigger_batch": "Compare the step's FLOPs time with its weight-read time: the larger one sets it.",
    "answer_small_chunks": "Is a pass of 32 + 64 or of 32 + 128 tokens above the crossover? Count the iterations.",
    "answer_fp8_crossover": "Work out ridge x b / 2 for both: BF16 (b = 2, its own peak) and FP8 (b = 1, twice it).",
}


def _choice(learner, reference, roof, name):
    roof.expect_choice(name, learner.value(name), getattr(reference, name), GENERAL[name], WHY_NOT[name])


@question("answer_bigger_batch")
def test_answer_bigger_batch(learner, reference, roof):
    _choice(learner, reference, roof, "answer_bigger_batch")


@question("answer_small_chunks")
def test_answer_small_chunks(learner, reference, roof):
    _choice(learner, reference, roof, "answer_small_chunks")


@question("answer_fp8_crossover")
def test_answer_fp8_crossover(learner, reference, roof):
    _choice(learner, reference, roof, "answer_fp8_crossover")
