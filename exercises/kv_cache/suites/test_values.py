"""By-hand values (Part 1): each learner's own model, accelerator and context (lesson.toml's [params]; the
``params`` fixture), weights and cache in BF16, 10% of the memory reserved. The page's own Part 1 is Llama-3-8B on
one NVIDIA H100 SXM (80 GB) with 8,192-token sequences; the worked example (Llama-3-70B on the chapter's replica)
is on the page, so its answers are among the known slips.

The feedback never states a by-hand answer. Each question's known slips are computed from the learner's numbers;
the slips within 0.2% of the learner's number are named, several together in one sentence (on some learners'
numbers two slips give about the same number), and a count only by a slip that gives exactly it. A test of the
lesson checks every combination: each right answer is apart from every slip. What
differs between learners stays in parentheses or numbers, which the class report leaves out. The count of
sequences is compared exactly (it is a whole number, rounded down).
"""

import math
from dataclasses import dataclass

from grader.checks import Carried, Use, choice_tests, explaining, three_figures
from grader.testing import question

GIB = 2**30
#: The worked example's answers (Llama-3-70B on two H200s, 8,192-token sequences): bytes per token, GB of budget,
#: sequences, even context.
WORKED = (327_680, 183.8, 68, 70e9 / 327_680)
@dataclass(frozen=True)
class Part1:
    """One learner's Part 1: their model's shape, their accelerator's memory, their context, and what follows."""

    model: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    params: float
    memory_gb: float
    context: int
    context_text: str

    @classmethod
    def of(cls, n):
        return cls(
            str(n["model"]), int(n["n_layers"]), int(n["n_heads"]), int(n["n_kv_heads"]), int(n["head_dim"]),
            float(n["params_b"]) * 1e9, float(n["memory_gb"]), int(n["context"]), str(n["context_text"]),
        )

    @property
    def per_token(self):
        return 2 * self.layers * self.kv_heads * self.head_dim * 2

    @property
    def weights(self):
        return self.params * 2  # BF16

    @property
    def weights_gb(self):
        return self.weights / 1e9

    @property
    def usable_gb(self):
        return self.memory_gb * 0.9

    @property
    def budget(self):
        return self.memory_gb * 1e9 * 0.9 - self.weights

    @property
    def seq(self):
        return self.per_token * self.context

    @property
    def ratio(self):
        return self.heads / self.kv_heads

    @property
    def token_bytes(self):
        return self.per_token

    @property
    def budget_gb(self):
        return self.budget / 1e9

    @property
    def sequences_fit(self):
        return self.budget // self.seq

    @property
    def even_context(self):
        return self.weights / self.per_token

    # -- what each slip gives --------------------------------------------------------------------------------

    def _heads(self):
        return f"what the query heads give (your model has {self.heads}): only its {self.kv_heads} KV heads are stored"

    def _layers80(self):
        return f"what the worked example's 80 layers (Llama-3-70B's) give: your model has {self.layers}"

    def _bf16(self):
        return "an FP8 cache, 1 byte per value, where the cache is BF16 (2 bytes)"

    # Slips of one answer named in every later one they can give (issue 33: a slip is the lesson's, not one
    # question's): one sentence each, whichever question it is named in.

    def _one_layer(self):
        return f"one layer only: each of the {self.layers} layers stores its own keys and values"

    def _no_head_dim(self):
        return f"the head dimension left out: each key and value is a vector of {self.head_dim} numbers"

    def _after_weights(self):
        return f"the reserve taken from what is left after the weights: it is 10% of the whole {self.memory_gb:g} GB"

    def _four_bytes(self):
        return "the weights at 4 bytes per parameter (32 bits): BF16 is 2 bytes"

    def token_bytes_known(self):
        p = self.per_token
        return ([
            (f"what two slips give: K or V only (a layer stores a key and a value, the factor 2), or "
             f"{self._bf16()}", p / 2),
            (self._heads(), p * self.ratio),
            (self._one_layer(), p / self.layers),
            ("the answer in bits: BF16 is 2 bytes per value", p * 8),
            (self._layers80(), p * 80 / self.layers),
            (self._no_head_dim(), p / self.head_dim),
            ("the answer in MB: the question asks for bytes", p / 1e6),
            ("the answer in MiB: the question asks for bytes", p / 2**20),
            ("the worked example's own answer (Llama-3-70B's): Part 1 is about another model", WORKED[0]),
        ])

    def budget_gb_known(self):
        m, w = self.memory_gb, self.weights_gb
        return ([
            ("the answer in GiB (binary gigabytes): the course uses decimal GB", self.budget / GIB),
            ("the 10% reserve left out: keep 10% of the memory back for activations and the framework", m - w),
            # a percentage read as an amount: 10 GB kept back, which is the 10% only on a 100 GB card
            *([(f"10 GB kept back: the reserve is 10% of the {m:g} GB, a share, not an amount", m - 10 - w)]
              if m != 100 else []),
            ("the weights at 1 byte per parameter, where they are BF16 (2 bytes)", 0.9 * m - w / 2),
            (self._after_weights(), (m - w) * 0.9),
            ("the weights left out: they are loaded first, and the cache gets what they leave", 0.9 * m),
            ("the answer in bytes: the question asks for GB", self.budget),
            (self._four_bytes(), 0.9 * m - 2 * w),
            ("the weights in bits: BF16 is 2 bytes per parameter", 0.9 * m - 8 * w),
            ("the worked example's own budget (two H200s, a 70 GB model): Part 1 is about another model and chip",
             WORKED[1]),
        ])

    def sequences_fit_known(self):
        b, s, p = self.budget, self.seq, self.per_token
        k = self.context // 1024
        return ([
            ("the count not rounded down: only whole sequences can be served", b / s),
            ("rounded up: the last sequence must fit whole", math.ceil(b / s)),
            (f"sequences of {k},000 tokens where they have {self.context_text} ({k}K is {k} x 1,024)",
             b // (p * k * 1000)),
            ("GB and GiB mixed: the budget and one sequence's size must be in the same unit",
             math.floor(b / 1e9 / (s / GIB))),
            ("GiB and GB mixed: the budget and one sequence's size must be in the same unit",
             math.floor(b / GIB / (s / 1e9))),
            (self._heads(), b // (s * self.ratio)),
            (f"what two slips give: K or V only (a key and a value, the factor 2), or {self._bf16()}", b // (s / 2)),
            ("the 10% reserve left out: keep 10% of the memory back", (self.memory_gb * 1e9 - self.weights) // s),
            ("the weights at 1 byte per parameter, where they are BF16", (self.usable_gb * 1e9 - self.weights / 2) // s),
            ("the weights left out: the cache gets only what they leave", (self.usable_gb * 1e9) // s),
            (f"the tokens that fit, not the sequences: each sequence needs {self.context_text} of them", b // p),
            ("the factor 2 counted twice (4 x ... where 2 belongs)", b // (2 * s)),
            (self._layers80(), b // (s * 80 / self.layers)),
            (self._one_layer(), b // (s / self.layers)),
            (self._no_head_dim(), b // (s / self.head_dim)),
            (self._after_weights(), (self.memory_gb * 1e9 - self.weights) * 0.9 // s),
            *(((self._four_bytes(), four // s),) if (four := self.usable_gb * 1e9 - 2 * self.weights) > 0 else ()),
            ("the worked example's own count (Llama-3-70B on two H200s): Part 1 is about another model and chip",
             WORKED[2]),
        ])

    def even_context_known(self):
        w, p = self.weights, self.per_token
        return ([
            (f"what two slips give: K or V only (the factor 2 left out), or {self._bf16()}", w / p * 2),
            (self._heads(), w / p / self.ratio),
            ("what two slips give: the weights at 1 byte per parameter where they are BF16 (2 bytes), "
             "or the factor 2 counted twice", w / p / 2),
            ("the context at which the cache fills the whole budget: the question asks where the KV read equals the "
             "weight read", self.budget / p),
            (self._layers80(), w / (p * 80 / self.layers)),
            (self._one_layer(), w / (p / self.layers)),
            (self._no_head_dim(), w / (p / self.head_dim)),
            (f"the weights in GB ({w / 1e9:g}), not in bytes", w / 1e9 / p),
            ("the KV bytes per token over the weight bytes: the formula is upside down", p / w),
            ("the weights counted in bits: both sides are in bytes", w / (8 * p)),
            ("the worked example's own context (Llama-3-70B's 70 GB and 327,680 bytes per token): Part 1 is about "
             "another model", WORKED[3]),
        ])

    def rel(self, name):
        """The question's relative tolerance on these numbers: a context rounded to 3 significant figures is right."""
        return three_figures(self.even_context, REL[name]) if name == "even_context" else REL[name]

    def carried(self, name, learner, others):
        """How ``name`` follows from the learner's own earlier answers (error carried forward: a wrong
        ``token_bytes`` or ``budget_gb`` costs its own points only), or None for an answer worked from the given
        numbers alone. ``others``: Part 1 on every other set of numbers, for an earlier answer right on one of
        them is a copied Part 1, and carries nothing."""
        def use(earlier):
            return Use.of(
                learner, earlier, self.value(earlier), rel=self.rel(earlier),
                others=[other.value(earlier) for other in others], known=self.known(earlier),
            )

        if name == "sequences_fit":
            return Carried(
                (use("token_bytes"), use("budget_gb")),
                lambda per_token, budget_gb: budget_gb * 1e9 // (per_token * self.context),
                learner,
            )
        if name == "even_context":
            return Carried((use("token_bytes"),), lambda per_token: self.weights / per_token, learner)
        return None

    def known(self, name):
        return getattr(self, f"{name}_known")()

    def named(self, name, given):
        """The known slips that explain ``given`` (grader.checks.explaining: several within 0.2% in one sentence, a
        count only by a slip giving exactly it)."""
        return explaining(self.known(name), given, count=name == "sequences_fit")

    def value(self, name):
        return getattr(self, name)

    def meaning(self, name):
        return {
            "token_bytes": "the bytes of KV cache per token",
            "budget_gb": "the GB left for the KV cache",
            "sequences_fit": f"the number of {self.context_text}-token sequences that fit",
            "even_context": "the context at which the KV read equals the weight read",
        }[name]

    def advice(self, name):
        return {
            "token_bytes": "2 x layers x KV heads x head dimension x bytes per value.",
            "budget_gb": f"90% of the {self.memory_gb:g} GB, minus the weights (parameters x 2 bytes), in GB.",
            "sequences_fit": f"The budget in bytes over (bytes per token x {self.context_text}), rounded down to a "
            "whole number.",
            "even_context": "The weight bytes over the KV bytes per token.",
        }[name]


#: Each by-hand question's tolerance: exact for the whole numbers, and for the context what the page allows, 3
#: significant figures (half a unit of the third figure, at least 0.2%: Part1.rel).
REL = {"token_bytes": 1e-6, "budget_gb": 1e-6, "sequences_fit": 1e-12, "even_context": 2e-3}


#: The units of the by-hand answers that have one, for a unit slip's words.
UNITS = {"token_bytes": "bytes", "budget_gb": "GB"}


def _value(learner, kv, params, name, other_params=()):
    part1 = Part1.of(params)
    given = learner.value(name)
    kv.expect_value(
        name,
        given,
        part1.value(name),
        meaning=part1.meaning(name),
        known=part1.named(name, given),
        rel=part1.rel(name),
        advice=part1.advice(name),
        unit=UNITS.get(name, ""),  # for a unit slip's words (bytes for GB, KB for bytes)
        carried=part1.carried(name, learner, [Part1.of(p) for p in other_params]),
    )


@question("token_bytes")
def test_token_bytes(learner, kv, params):
    _value(learner, kv, params, "token_bytes")


@question("budget_gb")
def test_budget_gb(learner, kv, params):
    _value(learner, kv, params, "budget_gb")


@question("sequences_fit")
def test_sequences_fit(learner, kv, params, other_params):
    _value(learner, kv, params, "sequences_fit", other_params)


@question("even_context")
def test_even_context(learner, kv, params, other_params):
    _value(learner, kv, params, "even_context", other_params)


# -- choices -------------------------------------------------------------------------------------------------------

#: Why each wrong option is wrong, keyed by the letter of the solution this was written against (used only while
#: the solution still gives that letter, so a reordered notebook falls back to the general hint).
WHY_NOT = {
    "answer_gqa": (
        "B",
        {
            "A": "Every query head does attend over the whole context, but with GQA 8 query heads share one KV "
            "head: the cache stores the 8 KV heads' keys and values, not 64.",
            "C": "A single key and value for the whole layer is multi-query attention (1 KV head); Llama-3-70B "
            "keeps 8.",
            "D": "GQA shares heads, it does not drop the values: each KV head still stores a key and a value (the "
            "factor 2).",
        },
    ),
    "answer_gib": (
        "C",
        {
            "A": "The cache does store a key and a value for every KV head in every layer: the factor 2 is right.",
            "B": "The weights are read at every step, but they are not part of the sequence's KV cache.",
            "D": "The 8 KV heads are already in the worked example's 327,680 bytes per token.",
        },
    ),
    "answer_fp8_cache": (
        "D",
        {
            "A": "The weights do not change, but the cache's bytes per token halve: that changes both numbers.",
            "B": "The context is weight bytes / KV bytes per token: the bytes per token are in it.",
            "C": "Reading faster is not the point: with half the bytes per token, the cache needs twice the positions "
            "to weigh as much as the weights.",
        },
    ),
}

GENERAL = {
    "answer_gqa": "The cache stores a key and a value per KV head; how many query heads share one?",
    "answer_gib": "Divide 2,684,354,560 by 1e9 and by 2^30.",
    "answer_fp8_cache": "Both numbers have the bytes per token in their denominator.",
}


choice_tests(globals(), GENERAL, WHY_NOT)
