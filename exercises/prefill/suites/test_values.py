"""By-hand values (Part 1: each learner's own model, prompt length and accelerator) and the three choices.

Part 1 is not the page's worked example (70e9 parameters, 4,000 tokens, two H200s: all on the page), and each
learner's is their own (lesson.toml's [params]; the ``params`` fixture). The page's own Part 1 is Llama-3-8B
(8e9 parameters in FP8), 2,700 tokens, one NVIDIA H100 SXM. Expected values and the known mistakes are computed
from the learner's numbers, so a slip is named on any of them; the worked example's numbers are among the known
mistakes. The feedback never states a by-hand answer. Each question's known slips are far apart (more than
0.2%: a test of the lesson checks it on every set of numbers), so the one within 0.2% of the learner's number is
named; two slips that give the same number are named together, in one sentence. What differs from learner to
learner stays in parentheses: the class report counts one misconception across everyone's numbers.
"""

import math
from dataclasses import dataclass

from grader.checks import choice_tests
from grader.testing import question

UTILISATION = 0.4


def three_figures(value):
    """The relative tolerance of an answer the text lets a learner round to 3 significant figures: 0.1%, widened
    to half a unit of the third digit where that is more (up to 0.5%, at 100.5), so that every learner's rounding
    is right whatever their numbers' leading digits."""
    half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 2)
    return max(1e-3, half_unit / abs(value) * 1.001)

#: Slips named alike in every question they can give (issue 33): the FLOPs' training rule, the utilisation as a
#: percentage (named in ttft_seconds too, where its function's slip says what the code did).
TRAINING = ("the training rule, 6 FLOPs per parameter per token (forward and backward): prefill is a forward pass, "
            "2")
PERCENT = "the utilisation read as a percentage (40 where it is the fraction 0.4)"

#: The worked example's answers (70e9 parameters, 4,000 tokens, two H200s at 28%, Llama-3-70B's BF16 cache).
WORKED_FLOPS = 2 * 70e9 * 4000
WORKED_INTENSITY = 2 * 4000 / 1
WORKED_TTFT_MS = WORKED_FLOPS / (2 * 1.979e15 * 0.28) * 1e3
WORKED_KV_GB = 2 * 80 * 8 * 128 * 2 * 4000 / 1e9


@dataclass(frozen=True)
class Part1:
    """One learner's Part 1: their model, prompt and accelerator, the right answers and the known slips."""

    n: float
    tokens: int
    tokens_text: str
    layers: int
    kv_heads: int
    q_heads: int
    head_dim: int
    model: str
    gpu: str
    sparse: float
    bandwidth: float

    @classmethod
    def of(cls, numbers):
        return cls(
            numbers["params_b"] * 1e9, numbers["prompt_len"], numbers["prompt_text"], numbers["layers"],
            numbers["kv_heads"], numbers["q_heads"], numbers["head_dim"], numbers["model"], numbers["gpu_short"],
            numbers["sparse_tflops"] * 1e12, numbers["tb_per_s"] * 1e12,
        )

    @property
    def dense(self):
        return self.sparse / 2  # the datasheet's FP8 figure is with sparsity

    @property
    def flops(self):
        return 2 * self.n * self.tokens

    @property
    def intensity(self):
        return 2 * self.tokens / 1

    @property
    def ttft_ms(self):
        return self.flops / (self.dense * UTILISATION) * 1e3

    @property
    def kv_gb(self):
        return 2 * self.layers * self.kv_heads * self.head_dim * 1 * self.tokens / 1e9

    def known(self):
        """Each question's known slips, (what the learner did, the value it gives), on these numbers.

        A slip of the FLOPs is named in every question it can give the answer of (issue 33: a slip is the lesson's,
        not one question's), from one sentence. A TTFT of half is the sparse headline or the 2 FLOPs left out, on
        any numbers, and both are said even where the learner's own prompt_flops is right: a TTFT worked out
        directly, not from that answer, can have left the 2 out (issue 33: never one reading that is not theirs)."""
        n_b, t, ttft, kv = f"{self.n / 1e9:g}", self.tokens_text, self.ttft_ms, self.kv_gb
        one_token = f"the FLOPs of one token: every one of the prompt tokens (yours: {t}) costs that much"
        sparse = (f"the datasheet's FP8 figure used as is (yours: {self.sparse / 1e12:,.0f} teraFLOPS; it is with "
                  "sparsity, dense FP8 is half of it)")
        return {
            "prompt_flops": [
                ("1 FLOP per parameter per token: a weight costs a multiply and an add, 2 FLOPs", self.n * self.tokens),
                (one_token, 2 * self.n),
                (TRAINING, 6 * self.n * self.tokens),
                ("the FLOPs in TFLOP: the question asks for the FLOPs themselves", self.flops / 1e12),
                (f"the parameters counted in billions ({n_b}, not {n_b}e9), or the FLOPs in GFLOP: give the FLOPs "
                 "themselves", self.flops / 1e9),
                ("the worked example's FLOPs: Part 1 is about another model and prompt", WORKED_FLOPS),
            ],
            "prompt_intensity": [
                ("what two slips give: the 2 FLOPs per parameter left out, or 2 bytes per parameter where FP8 is 1; "
                 "it is 2 FLOPs per parameter per token over 1 byte", self.tokens),
                ("the weights counted in bits (8 per FP8 value): FP8 is 1 byte per parameter", 2 * self.tokens / 8),
                (f"one token's intensity (a decode step): prefill uses each weight it reads for every prompt token "
                 f"(yours: {t})", 2.0),
                (f"the FLOPs over the weights counted in GB ({n_b}), not in bytes ({n_b}e9)",
                 self.flops / (self.n / 1e9)),
                (f"the ridge point of the chip (yours: the {self.gpu}): the question asks for the prefill's own FLOPs "
                 "per byte", self.dense / self.bandwidth),
                ("the ridge point of the sparse headline: the question asks for the prefill's own FLOPs per byte",
                 self.sparse / self.bandwidth),
                ("the worked example's intensity: Part 1 is about another prompt", WORKED_INTENSITY),
                (TRAINING, 3 * self.intensity),
            ],
            "ttft_ms": [
                (f"what two slips give: {sparse}, or the 2 FLOPs per parameter left out", ttft / 2),
                (TRAINING, 3 * ttft),
                (one_token, ttft / self.tokens),
                (PERCENT, ttft / 100),
                ("the time at 100% of the peak: the pass achieves only 40% of it", ttft * UTILISATION),
                ("multiplying by the utilisation: a pass that achieves 40% of the peak takes longer than at the peak, not "
                 "shorter",
                 ttft * UTILISATION**2),
                ("the time in seconds: the question asks for milliseconds", ttft / 1e3),
                ("the sparse headline at 100% of it: the datasheet's FP8 figure is with sparsity, and the pass achieves "
                 "only 40% of the dense peak", ttft / 2 * UTILISATION),
                ("what two slips give: the peak halved twice (the datasheet's FP8 figure is with "
                 "sparsity: that is its one halving), or the BF16 rate where the model runs in FP8", ttft * 2),
                (f"the time to read the weights once (yours: {n_b}e9 bytes at {self.bandwidth / 1e12:g} TB/s): this "
                 "prefill is compute-bound, so the arithmetic sets its time", self.n / self.bandwidth * 1e3),
                ("the worked example's TTFT: Part 1 is about another model, prompt and chip", WORKED_TTFT_MS),
            ],
            "kv_gb": [
                ("K or V only: every layer stores a key and a value vector, the factor 2", kv / 2),
                ("what two slips give: 2 bytes per value (BF16) where the cache is FP8, or the factor 2 "
                 "counted twice", kv * 2),
                (f"what the query heads give (yours: {self.q_heads}): only the KV heads (yours: {self.kv_heads}) are "
                 "stored", kv * self.q_heads / self.kv_heads),
                (f"one layer only: each layer (yours: {self.layers}) stores its own keys and values", kv / self.layers),
                (f"one position only: prefill writes the cache for every prompt position (yours: {t})",
                 kv / self.tokens),
                ("the answer in GiB (binary gigabytes): the course uses decimal GB", kv * 1e9 / 2**30),
                ("the answer in bits: FP8 is 1 byte per value", kv * 8),
                ("the answer in bytes: the question asks for GB", kv * 1e9),
                ("the answer in MB: the question asks for GB", kv * 1e3),
                (f"what the worked example's 80 layers (Llama-3-70B's) give: this model (yours: {self.model}) has "
                 "fewer", kv * 80 / self.layers),
                ("the worked example's KV cache: Part 1 is about another model and prompt", WORKED_KV_GB),
            ],
        }

    def values(self):
        """Each question's (right value, relative tolerance, what it is in words, advice)."""
        return {
            "prompt_flops": (
                self.flops, 1e-6, "the FLOPs of the prefill", "2 FLOPs per parameter for each prompt token."
            ),
            "prompt_intensity": (
                self.intensity, 1e-6, "the FLOPs per byte of weights read",
                "2 FLOPs per parameter per token, over the bytes per parameter.",
            ),
            "ttft_ms": (
                self.ttft_ms, three_figures(self.ttft_ms), "the time to first token in milliseconds",
                "The FLOPs over the FLOP/s achieved (the dense FP8 peak times the utilisation), in ms.",
            ),
            "kv_gb": (
                self.kv_gb, three_figures(self.kv_gb), "the GB of KV cache written",
                "2 x layers x KV heads x head dimension x bytes per value x positions, in GB.",
            ),
        }


def _value(learner, prefill, params, name, carried=None):
    part1 = Part1.of(params)
    expected, rel, meaning, advice = part1.values()[name]
    known = part1.known()[name]
    prefill.expect_value(
        name, learner.value(name), expected, meaning=meaning, known=known, rel=rel, advice=advice, carried=carried,
        unit=UNITS.get(name, ""),
    )


#: The units of the by-hand answers that have one, for a unit slip's words (microseconds for milliseconds).
UNITS = {"ttft_ms": "ms", "kv_gb": "GB"}


def carried_ttft(learner, prefill, params, other_params):
    """ttft_ms is worked from prompt_flops (TTFT = the prefill's FLOPs / (dense peak x utilisation)), so a learner
    whose FLOPs are wrong and whose TTFT follows from their own FLOPs loses the FLOPs' point only (one bug costs
    once; grader.checks.Carried). FLOPs right on another learner's numbers are a copy, and carry nothing."""
    part1 = Part1.of(params)
    flops, rel, _, _ = part1.values()["prompt_flops"]
    others = [Part1.of(p).values()["prompt_flops"][0] for p in other_params]
    return prefill.Carried(
        uses=[prefill.Use.of(learner, "prompt_flops", flops, rel=rel, others=others, known=part1.known()["prompt_flops"])],
        formula=lambda flops: flops / (part1.dense * UTILISATION) * 1e3,
        learner=learner,
    )


@question("prompt_flops")
def test_prompt_flops(learner, prefill, params):
    _value(learner, prefill, params, "prompt_flops")


@question("prompt_intensity")
def test_prompt_intensity(learner, prefill, params):
    _value(learner, prefill, params, "prompt_intensity")


@question("ttft_ms")
def test_ttft_ms(learner, prefill, params, other_params):
    _value(learner, prefill, params, "ttft_ms", carried_ttft(learner, prefill, params, other_params))


@question("kv_gb")
def test_kv_gb(learner, prefill, params):
    _value(learner, prefill, params, "kv_gb")


# -- choices -------------------------------------------------------------------------------------------------------

#: Why each wrong option is wrong, keyed by the letter of the solution this was written against (used only while
#: the solution still gives that letter, so a reordered notebook falls back to the general hint).
WHY_NOT = {
    "answer_one_token": ("B", {
        "A": "One pass is not always limited by arithmetic: what matters is how many FLOPs each byte read feeds. "
             "A single token uses each weight once, 2 FLOPs per weight.",
        "C": "8,000 FLOPs per byte is the 4,000-token prompt's intensity; a one-token prompt uses each weight for "
             "one token only.",
        "D": "A new prompt's keys and values are not in the cache yet: prefill computes and writes them, and "
             "that is 2 FLOPs per weight for the token.",
    }),
    "answer_factor_two": ("A", {
        "B": "A GiB is 2^30 / 10^9 = 1.074 GB: that changes a result by about 7%, not by a factor of 2.",
        "C": "Attention's term is a few percent at 4,000 tokens (about 3.7% here), not a doubling.",
        "D": "Counting K and V is right, and the KV bytes written do not enter the TTFT formula, FLOPs over "
             "achieved FLOP/s.",
    }),
    "answer_longer_prompt": ("D", {
        "A": "Reading the weights once is not what sets a compute-bound prefill's time: its FLOPs, 2·N·L, are, "
             "and they double with L.",
        "B": "One pass over twice the tokens does twice the arithmetic and stores twice the positions.",
        "C": "The cache keeps a key and a value for every position in every layer, so it grows with the prompt.",
    }),
}

GENERAL = {
    "answer_one_token": "Work out the intensity 2L / b for L = 1 and compare it with the ridge point.",
    "answer_factor_two": "Which of these changes the FLOPs or the FLOP/s by exactly 2?",
    "answer_longer_prompt": "Both the FLOPs (2·N·L) and the KV bytes have L as a factor.",
}


choice_tests(globals(), GENERAL, WHY_NOT)
