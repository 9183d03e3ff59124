"""Value and multiple-choice answers: Part 1's model worked by hand, and three choices.

Part 1 is not the page's worked example (7e9 parameters x 2 bytes at 1 TB/s: 14 GB, 14 ms, 71.4 tokens/s, all
on the page), and each learner's is their own: a model size, a precision and an accelerator drawn from their
identity (lesson.toml's [params]; the ``params`` fixture). The page's own Part 1 is 13e9 parameters in FP8 on an
NVIDIA H100 SXM at 3.35 TB/s. Expected values and the known mistakes are computed from the learner's numbers, so
a slip is named on any of them; the worked example's numbers are among the known mistakes.
"""

from dataclasses import dataclass

from grader.checks import Carried, Use, choice_tests, expect_value, rounded_too_far
from grader.testing import question

#: How close each of Part 1's answers must be: the same in its own check and wherever a later answer is worked
#: from it (a later answer is credited on an earlier one only when that one is wrong by its own check).
GB_REL = 1e-6
MS_ABS = 0.005  # 2 decimal places
TOKENS_ABS = 0.05  # 1 decimal place

WORKED = (14, 14, 1000 / 14)  # the page's worked example: GB, ms, tokens/s


@dataclass(frozen=True)
class Part1:
    """One learner's Part 1: their model and accelerator, and what follows from them."""

    params: float
    bytes_per_param: float
    bandwidth: float
    precision: str
    gpu: str
    tb_per_s: float

    @classmethod
    def of(cls, numbers):
        return cls(
            numbers["params_b"] * 1e9, numbers["bytes_per_param"], numbers["tb_per_s"] * 1e12,
            numbers["precision"], numbers["gpu"], numbers["tb_per_s"],
        )

    @property
    def gb(self):
        return self.params * self.bytes_per_param / 1e9

    @property
    def ms(self):
        return self.params * self.bytes_per_param / self.bandwidth * 1e3

    @property
    def tokens_per_s(self):
        return 1e3 / self.ms

    @property
    def stored(self):
        # What differs from learner to learner stays in parentheses: the class report counts one misconception
        # across everyone's numbers (grader/report/class_report.py leaves parentheses out).
        return f"your model is not stored in BF16 (yours is {self.precision}, {self.bytes_per_param:g} byte per parameter)"

    def one_byte(self, value):
        """FP8's 1 byte per parameter for a model stored in less (INT4): a slip only where 1 byte is not right."""
        if self.bytes_per_param == 1:
            return []
        return [("1 byte per parameter", f"your model is not stored in FP8 (yours is {self.precision}, "
                 f"{self.bytes_per_param:g} byte per parameter).", value)]

    def one_tb(self, value):
        """The worked example's 1 TB/s for the learner's accelerator: named in each answer worked from the bandwidth
        (issue 33: a slip is the lesson's, not one question's), from one sentence."""
        return ("the worked example's 1 TB/s", f"your accelerator is another one (yours: the {self.gpu}, "
                f"{self.tb_per_s:g} TB/s).", value)

    def gb_mistakes(self):
        return [
            ("2 bytes per parameter", f"{self.stored}, the worked example's is.", 2 * self.params / 1e9),
            *self.one_byte(self.params / 1e9),
            ("the worked example's model", f"Part 1 is about another model (yours: {self.params / 1e9:g}e9 "
             f"parameters in {self.precision}).", WORKED[0]),
            ("counting in GiB (binary gigabytes)", "the lesson uses decimal GB.", self.gb * 1e9 / 2**30),
            ("counting bytes", "the question asks for gigabytes, not bytes.", self.gb * 1e9),
            ("counting megabytes", "the question asks for gigabytes.", self.gb * 1e3),
        ]

    def ms_mistakes(self):
        return [
            ("bandwidth / bytes, the tokens per second", "the question asks for the time per token.", self.tokens_per_s),
            ("the step time in seconds", "the question asks for milliseconds, not seconds.", self.ms / 1e3),
            ("bandwidth / bytes in tokens per millisecond", "the formula is upside down: time = bytes / bandwidth.",
             1 / self.ms),
            ("the step time in microseconds", "the question asks for milliseconds (is the bandwidth in GB/s instead of "
             "TB/s? A TB/s is 1e12 bytes/s).", self.ms * 1e3),
            self.one_tb(self.gb),
            ("2 bytes per parameter", f"{self.stored}.", 2 * self.params / self.bandwidth * 1e3),
            *self.one_byte(self.params / self.bandwidth * 1e3),
            ("the worked example's model", "Part 1 is about another model and accelerator.", WORKED[1]),
        ]

    def tokens_mistakes(self):
        return [
            ("the milliseconds per token", "that is a time per token; the question asks for tokens per second.", self.ms),
            ("the seconds per token", "that is a time per token; the question asks for tokens per second.", self.ms / 1e3),
            ("tokens per millisecond (1 / ms_per_token)", "the question asks for tokens per second, not per millisecond.", 1 / self.ms),
            ("1000 / (the seconds per token)", "mixed units: the 1000 belongs with milliseconds, not seconds.", 1e6 / self.ms),
            ("2 bytes per parameter", f"{self.stored}.", self.bandwidth / (2 * self.params)),
            *self.one_byte(self.bandwidth / self.params),
            self.one_tb(1e3 / self.gb),
            ("the worked example's rate", "Part 1 is about another model and accelerator.", WORKED[2]),
            ("the page's 989 TFLOP/s (the H100's dense BF16 peak) over 2 FLOPs per parameter, the arithmetic limit",
             "one stream is bound by memory bandwidth, not arithmetic: every step reads all the weights, so the "
             "bytes read set the rate.", 989e12 / (2 * self.params)),
        ]

    def rounded_first(self, value):
        """The milliseconds per step rounded (to a whole number or one decimal) before the rate is worked from them
        (an intermediate rounded too early), where that gives ``value`` exactly and moves the rate past its
        tolerance. Named only on an exact match: such a rate lies within 1% of the right one, closer than the
        0.2% a known mistake is named within allows (tests/test_decode.py keeps the known ones 1% apart)."""
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        for places in (1, 0):
            early = round(self.ms, places)
            rate = 1e3 / early if early else None
            if rate and number is not None and abs(rate - self.tokens_per_s) > TOKENS_ABS and abs(number / rate - 1) < 1e-9:
                return [("1000 over the milliseconds per step rounded first", "round only the final answer: "
                         "a rounded step time carries its rounding into the rate.", rate)]
        return []


# Why each wrong option is wrong, keyed by the letters of the solution notebook this was written against. They
# are used only while the solution's letter is still the one named here (so a reordered notebook falls back to
# the general hint instead of explaining the wrong option).
WHY_NOT = {
    "answer_sequential": ("A", {
        "B": "Prefill can score the prompt's positions at once because they are all known; token 2 is computed by "
             "running the model on a sequence that already ends with token 1, so it cannot be known before token 1 "
             "has been chosen.",
    }),
    "answer_prefill_vs_decode": ("C", {
        "A": "Every token, read or written, goes through the same layers: about 2 FLOPs per weight either way.",
        "B": "The same replica does both phases on the same GPUs; the difference is how often the weights are read.",
        "D": "Per token, decode does about the same arithmetic as prefill (about 2 FLOPs per weight; attention adds "
             "little at these lengths). What differs is memory traffic: decode re-reads all 70 GB of weights for "
             "every output token.",
    }),
    "answer_batching_bug": ("B", {
        "A": "That is the common misconception: the 8 streams share one read of the weights, but a batched step is "
             "not shorter, and it still gives each stream one token, so no single stream gets faster.",
        "C": "Each sequence has its own KV cache, and a batched step is not shorter: it still reads all the weights.",
    }),
}

GENERAL = {
    "answer_sequential": "Revisit why decoding is sequential: each step's input is the whole sequence so far, "
    "including the token the previous step just produced.",
    "answer_prefill_vs_decode": "Count how many times the weights are read to process the 4,000 prompt tokens, "
    "and how many times to write 4,000 output tokens.",
    "answer_batching_bug": "In one batched step, how many new tokens does each sequence get, and what do the 8 "
    "sequences share?",
}


def known(mistakes):
    """Decode's mistakes, (what was computed, why it is wrong, the value), as :func:`grader.checks.expect_value`
    names them: "That is what <computed> gives: <why>." """
    return [(f"what {formula} gives: {why.removesuffix('.')}", wrong) for formula, why, wrong in mistakes]


@question("gb_per_step")
def test_gb_per_step(learner, params):
    part1 = Part1.of(params)
    expect_value(
        "gb_per_step",
        learner.value("gb_per_step"),
        part1.gb,
        meaning="the gigabytes read per decode step (every step reads all of the model's weights once)",
        known=known(part1.gb_mistakes()),
        rel=GB_REL,
        unit="GB",
    )


@question("ms_per_token")
def test_ms_per_token(learner, params, other_params):
    """Worked from the learner's own gb_per_step when that one is wrong (one slip costs once), unless that one is
    right on another set of numbers and none of its slips on the learner's own gives it (a copied Part 1 earns
    nothing)."""
    part1 = Part1.of(params)
    others = [Part1.of(p).gb for p in other_params]
    gb = Use.of(learner, "gb_per_step", part1.gb, rel=GB_REL, others=others, known=known(part1.gb_mistakes()))
    expect_value(
        "ms_per_token",
        learner.value("ms_per_token"),
        part1.ms,
        meaning=f"the milliseconds per decode step (the weights' bytes read at {part1.tb_per_s:g} TB/s), to 2 "
        "decimal places",
        known=known(part1.ms_mistakes()),
        rel=GB_REL,
        abs_tol=MS_ABS,
        unit="ms",
        carried=Carried((gb,), lambda gb: gb / part1.tb_per_s, learner),  # GB / (TB/s) = ms
    )


@question("max_tokens_per_s")
def test_max_tokens_per_s(learner, params, other_params):
    """Worked from the learner's own ms_per_token when that one is wrong (and not right on another set, but as a
    slip on the learner's own numbers)."""
    part1 = Part1.of(params)
    value = learner.value("max_tokens_per_s")
    hint = ""
    close = isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - part1.tokens_per_s) < 1
    if close and not rounded_too_far(value, part1.tokens_per_s, GB_REL, TOKENS_ABS):  # a rounding named already says what the hint would
        hint = (
            "Close, but not precise enough: keep at least one correct decimal place, or store the computed value "
            "itself."
        )
    ms = Use.of(
        learner, "ms_per_token", part1.ms, abs_tol=MS_ABS, others=[Part1.of(p).ms for p in other_params],
        known=known(part1.ms_mistakes()),
    )
    expect_value(
        "max_tokens_per_s",
        value,
        part1.tokens_per_s,
        meaning="the decode steps per second of one stream (1000 ms divided by the milliseconds per step)",
        known=known([*part1.tokens_mistakes(), *part1.rounded_first(value)]),
        rel=GB_REL,
        abs_tol=TOKENS_ABS,
        unit="tokens/s",
        advice=hint,
        carried=Carried((ms,), lambda ms: 1e3 / ms, learner),
    )


def _letters(name):
    written_for, why_not = WHY_NOT[name]
    return "".join(sorted({written_for, *why_not}))


choice_tests(globals(), GENERAL, WHY_NOT, letters=_letters)
