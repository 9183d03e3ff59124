"""By-hand values (Part 1) and the four choices. Each learner's Part 1 is their own (lesson.toml's [params]; the
``params`` fixture): a model in FP8 with its published shape and a BF16 cache, an accelerator at its datasheet's
bandwidth, a batch and context, a 10 ms ITL target, and Little's law at an arrival rate and latency. The page's own
is an 8e9-parameter model with Llama-3-8B's shape on one H100 SXM, 16 sequences of 2,000 tokens, 15 requests/s
and 4.2 s; the worked example (the chapter's replica) is on the page, so its answers are among the known slips.

The feedback never states a by-hand answer. Each question's known slips are computed from the learner's numbers;
the slips within 0.2% of the learner's number are named, several together in one sentence (on some learners'
numbers two slips give about the same number), and a count only by a slip that gives exactly it. A test of the
lesson checks every combination: each right answer is apart from every slip.
"""

import math
from dataclasses import dataclass

from grader.checks import Carried, Use, choice_tests, explaining, three_figures
from grader.testing import question

ITL_TARGET = 0.010  # seconds
#: The worked example's answers (the chapter's replica): steps at B = 1 and 64 (ms), fleet rates at B = 1, 64 and
#: the 20 ms target's 93 (tokens/s), that 93, and the requests in flight at 8 per second.
WORKED_STEPS = (7.43, 16.03)
WORKED_RATES = (134.6, 3993, 4652)
WORKED_BATCH = 93
WORKED_IN_FLIGHT = 83.84
#: Slips of the bytes a step reads, named alike in the step time, the fleet rate and the largest batch (issue 33: a
#: slip is the lesson's, not one question's).
FP8_CACHE = "the cache in FP8 (1 byte per value): it is in BF16, 2 bytes"
TWO_BYTE_WEIGHTS = "the weights at 2 bytes per parameter: they are in FP8, 1 byte"
KV_TWICE = "K and V counted twice: the bytes per token already count a key and a value in every layer and KV head"
@dataclass(frozen=True)
class Part1:
    """One learner's Part 1: their model, accelerator, batch, context and arrivals, and what follows from them."""

    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    weights: float  # bytes (FP8: one per parameter)
    bandwidth: float
    tb_per_s: float
    batch: int
    context: int
    context_text: str
    rate: float
    latency: float

    @classmethod
    def of(cls, n):
        return cls(
            int(n["n_layers"]), int(n["n_heads"]), int(n["n_kv_heads"]), int(n["head_dim"]),
            float(n["params_b"]) * 1e9, float(n["tb_per_s"]) * 1e12, float(n["tb_per_s"]), int(n["batch"]),
            int(n["context"]), str(n["context_text"]), float(n["rate"]), float(n["latency"]),
        )

    @property
    def kv(self):
        return 2 * self.layers * self.kv_heads * self.head_dim * 2  # bytes per token, BF16 cache

    @property
    def seq(self):
        return self.context * self.kv  # one sequence's cache

    @property
    def ratio(self):
        return self.heads / self.kv_heads

    @property
    def step_s(self):
        return (self.weights + self.batch * self.seq) / self.bandwidth

    @property
    def fits(self):
        return (ITL_TARGET * self.bandwidth - self.weights) / self.seq

    @property
    def step_ms(self):
        return self.step_s * 1e3

    @property
    def fleet_rate(self):
        return self.batch / self.step_s

    @property
    def max_batch(self):
        return math.floor(self.fits)

    @property
    def requests_in_flight(self):
        return self.rate * self.latency

    def value(self, name):
        return getattr(self, name)

    def rel(self, name):
        return {
            "step_ms": three_figures(self.step_ms, 2e-3),
            "fleet_rate": three_figures(self.fleet_rate, 2e-3),
            "max_batch": 1e-9,
            "requests_in_flight": 1e-6,
        }[name]

    # -- what each slip gives --------------------------------------------------------------------------------

    def _heads(self):
        return f"what the query heads give (your model has {self.heads}): only its {self.kv_heads} KV heads are stored"

    def _step_bytes(self):
        """The slips of the bytes one step reads, (what the learner did, the bytes it gives): named in the step time
        and in the fleet rate worked from it, from one sentence each (issue 33: a slip is the lesson's, not one
        question's)."""
        w, b, s = self.weights, self.batch, self.seq
        return [
            (f"one sequence's cache only: each of the {b} sequences has its own, and the step reads them all", w + s),
            (f"the weights read once per sequence: the batch shares one read of the {w / 1e9:g} GB of weights",
             b * (w + s)),
            ("the caches left out: the step reads every sequence's cache as well as the weights", w),
            (FP8_CACHE, w + b * s / 2),
            (self._heads(), w + self.ratio * b * s),
            (TWO_BYTE_WEIGHTS, 2 * w + b * s),
            (KV_TWICE, w + 2 * b * s),
        ]

    def step_ms_known(self):
        return ([
            *((what, read / self.bandwidth * 1e3) for what, read in self._step_bytes()),
            ("the time in seconds: the question asks for milliseconds", self.step_s),
            *((("the worked example's step (the chapter's replica): Part 1 is about another model and chip", x)
               for x in WORKED_STEPS)),
        ])

    def fleet_rate_known(self):
        b, bw = self.batch, self.bandwidth
        return ([
            (f"one user's rate (1 / step time): each of the {b} sequences gains a token per step", 1 / self.step_s),
            *((what, b * bw / read) for what, read in self._step_bytes()),
            ("tokens per millisecond (the step time in milliseconds): the question asks for tokens per second",
             b / (self.step_s * 1e3)),
            (f"the batch multiplied by the step time: a rate is the {b} tokens of a step over the time it takes",
             b * self.step_s),
            *((("the worked example's rate (the chapter's replica): Part 1 is about another model and chip", x)
               for x in WORKED_RATES)),
        ])

    def max_batch_known(self):
        w, s, bw, fits = self.weights, self.seq, self.bandwidth, self.fits
        room = ITL_TARGET * bw
        return ([
            ("the sequences that fit rounded up, or to the nearest: a batch that large takes longer than 10 ms a step, "
             "and the largest batch that meets the target is rounded down", math.floor(fits) + 1),
            ("a batch below the largest that meets 10 ms: every whole sequence that fits is within the target, with "
             "nothing held back", math.floor(fits) - 1),
            ("the number of sequences unrounded: a batch is a whole number of sequences", fits),
            ("the 10 ms target taken as 10 seconds: the bandwidth is in bytes per second, so the target must be in "
             "seconds too", math.floor((ITL_TARGET * 1e3 * bw - w) / s)),
            (f"the weights left out: every step reads the {w / 1e9:g} GB of weights before any cache",
             math.floor(room / s)),
            ("the weights charged to every sequence: the batch shares one read of them", math.floor(room / (w + s))),
            (FP8_CACHE, math.floor((room - w) / (s / 2))),
            (self._heads(), math.floor((room - w) / (self.ratio * s))),
            *(((TWO_BYTE_WEIGHTS, two),) if (two := math.floor((room - 2 * w) / s)) >= 1 else ()),
            (KV_TWICE, math.floor((room - w) / (2 * s))),
            ("the worked example's largest batch (the chapter's replica, a 20 ms target): Part 1 is about another "
             "model and chip", WORKED_BATCH),
        ])

    def requests_in_flight_known(self):
        r, t = self.rate, self.latency
        return ([
            ("the rate divided by the time: Little's law multiplies them", r / t),
            ("the time divided by the rate: Little's law multiplies them", t / r),
            ("the time in milliseconds: both are per second and in seconds", r * t * 1e3),
            ("the rate and the time added: Little's law multiplies them", r + t),
            ("the worked example's requests in flight: Part 1 has its own rate and latency", WORKED_IN_FLIGHT),
        ])

    def carried(self, name, learner, others):
        """How ``name`` follows from the learner's own earlier answers (error carried forward: a wrong ``step_ms``
        costs its own points only), or None for an answer worked from the given numbers alone. ``others``: Part 1
        on every other set of numbers, for a step right on one of them is a copied Part 1, and carries nothing."""
        if name != "fleet_rate":
            return None
        step = Use.of(
            learner, "step_ms", self.step_ms, rel=self.rel("step_ms"), others=[other.step_ms for other in others],
            known=self.known("step_ms"),
        )
        return Carried((step,), lambda step_ms: self.batch / (step_ms / 1e3), learner)

    def known(self, name):
        return getattr(self, f"{name}_known")()

    def named(self, name, given):
        """The known slips that explain ``given`` (grader.checks.explaining: several within 0.2% in one sentence, a
        count only by a slip giving exactly it)."""
        return explaining(self.known(name), given, count=name == "max_batch")

    def meaning(self, name):
        return {
            "step_ms": "the ms per decode step",
            "fleet_rate": "the tokens/s of the whole batch",
            "max_batch": "the largest batch within 10 ms",
            "requests_in_flight": "the requests in flight",
        }[name]

    def advice(self, name):
        return {
            "step_ms": f"The weights once plus {self.batch} caches of {self.context_text} positions, over "
            f"{self.tb_per_s:g}e12 bytes/s, in ms.",
            "fleet_rate": f"{self.batch} tokens per step, over the step time in seconds.",
            "max_batch": "The bytes 10 ms allows, less the weights, over one sequence's cache: the largest whole batch "
            "that fits.",
            "requests_in_flight": "Little's law: arrival rate x time in the system.",
        }[name]


#: The units of the by-hand answers that have one, for a unit slip's words (microseconds for milliseconds).
UNITS = {"step_ms": "ms", "fleet_rate": "tokens/s"}

#: The by-hand questions, in the page's order.
NAMES = ("step_ms", "fleet_rate", "max_batch", "requests_in_flight")


def _value(learner, batching, params, name, other_params=()):
    part1 = Part1.of(params)
    given = learner.value(name)
    batching.expect_value(
        name,
        given,
        part1.value(name),
        meaning=part1.meaning(name),
        known=part1.named(name, given),
        rel=part1.rel(name),
        advice=part1.advice(name),
        unit=UNITS.get(name, ""),
        carried=part1.carried(name, learner, [Part1.of(p) for p in other_params]),
    )


@question("step_ms")
def test_step_ms(learner, batching, params):
    _value(learner, batching, params, "step_ms")


@question("fleet_rate")
def test_fleet_rate(learner, batching, params, other_params):
    _value(learner, batching, params, "fleet_rate", other_params)


@question("max_batch")
def test_max_batch(learner, batching, params):
    _value(learner, batching, params, "max_batch")


@question("requests_in_flight")
def test_requests_in_flight(learner, batching, params):
    _value(learner, batching, params, "requests_in_flight")


# -- choices -------------------------------------------------------------------------------------------------------

#: Why each wrong option is wrong, keyed by the letter of the solution this was written against (used only while
#: the solution still gives that letter, so a reordered notebook falls back to the general hint).
WHY_NOT = {
    "answer_double_batch": ("C", {
        "A": "The weights are read once, but each sequence's KV cache is read too: 64 caches of 1.31 GB take longer "
             "to read than 32 (the step grows from about 11.7 to 16.0 ms).",
        "B": "Bandwidth is not shared out per user: one step reads the weights once for the whole batch and gives "
             "every sequence a token, so the total rises.",
        "D": "Using all of the bandwidth is what a memory-bound step always does; a bigger batch gets more tokens "
             "from each step, and each step takes longer.",
    }),
    "answer_static_batching": ("A", {
        "B": "Every decode step reads every running sequence's cache, whatever the batching: attention needs all "
             "earlier positions at each step.",
        "C": "Running sequences one after another would read the weights once per sequence: that is the slowest "
             "way, not the fastest.",
        "D": "Neither recomputes prompts at each step: a prompt is prefilled once, and its keys and values are kept "
             "in the KV cache.",
    }),
    "answer_bandwidth_gauge": ("D", {
        "A": "A user's speed is the step time, not a share of the bandwidth: the one read of the weights serves "
             "the whole batch.",
        "B": "One sequence's step reads all 70 GB of weights, not only its cache, so it keeps the memory just as "
             "busy.",
        "C": "At 64 sequences the weights' arithmetic is about 58 FLOPs per byte, far below the ridge point of 412: "
             "the replica is still memory-bound.",
    }),
    "answer_little": ("B", {
        "A": "Requests per second and sequences held at once are different units: multiply the rate by the time "
             "each request stays (Little's law) before comparing.",
        "C": "A request holds its place in the batch for its whole reply, every step of it, not for one step.",
        "D": "Little's law holds for averages over time, for any stable system: the mean latency times the arrival "
             "rate is the mean number in flight.",
    }),
}

GENERAL = {
    "answer_double_batch": "Write the step time (W + B x C x k) / bandwidth for B = 32 and B = 64.",
    "answer_static_batching": "What happens to a finished sequence's place in a static batch?",
    "answer_bandwidth_gauge": "Work out one step's bytes and time at B = 1 and at B = 64.",
    "answer_little": "Little's law: requests in flight = arrival rate x latency.",
}


choice_tests(globals(), GENERAL, WHY_NOT)
