"""Part 1's by-hand numbers and the three choices.

Each learner's Part 1 is their own (lesson.toml's [params]; the ``params`` fixture): a deployment (its TTFT and
ITL), a reply length and ten latencies, drawn from their identity. The page's own are TTFT 0.6 s, ITL 32 ms, 60
tokens and 230, 210, 250, 1900, 240, 220, 260, 215, 245, 235 ms; the worked example's (0.5 s, 10 ms, 500 tokens)
are among the known mistakes. Expected values and known mistakes are computed from the learner's numbers, so a
slip is named on any of them; what differs between learners stays in parentheses (the class report leaves
parentheses out, so it counts one misconception across everyone's numbers).

No sentence here states a by-hand answer: the expected value is withheld from learners (reveal "never").
"""

from dataclasses import dataclass

from grader.checks import choice_tests
from grader.testing import question

#: The worked example's request on the page: TTFT 0.5 s, a steady 10 ms, 500 tokens.
WORKED_TTFT, WORKED_ITL, WORKED_N = 0.5, 0.010, 500
MIDDLE = "That is one of the two middle values, without interpolating: with ten values the rank is 4.5, halfway between the 5th and 6th sorted values."


@dataclass(frozen=True)
class Part1:
    """One learner's Part 1: their deployment, reply length and ten latencies, and what follows from them."""

    ttft: float  # s
    itl_ms: float
    n_out: int
    samples: tuple[float, ...]  # ms, in the order the text shows them

    @classmethod
    def of(cls, numbers):
        samples = tuple(float(x) for x in str(numbers["latencies"]).split(","))
        return cls(float(numbers["ttft_s"]), float(numbers["itl_ms"]), int(numbers["n_out"]), samples)

    @property
    def itl(self):
        return self.itl_ms / 1000

    @property
    def latency(self):
        return self.ttft + (self.n_out - 1) * self.itl

    @property
    def steady(self):
        return 1 / self.itl

    @property
    def rate(self):
        return self.n_out / self.latency

    @property
    def sorted(self):
        return sorted(self.samples)

    @property
    def mean(self):
        return sum(self.samples) / len(self.samples)

    def percentile(self, p):
        s = self.sorted
        h = (len(s) - 1) * p / 100
        i = int(h)
        return s[i] + (h - i) * (s[min(i + 1, len(s) - 1)] - s[i])

    @property
    def yours(self):
        return f"(yours: TTFT {self.ttft:g} s, ITL {self.itl_ms:g} ms, {self.n_out} tokens)"

    # Slips of the latency named in the output rate worked from it too, from one sentence each (issue 33: a slip is
    # the lesson's, not one question's).

    def _too_few_gaps(self):
        return "That counts one gap too few: after the first token come n_out - 1 gaps."

    def _itl_in_ms(self):
        return ("The ITL was used in milliseconds while the TTFT is in seconds: convert it to seconds first (yours: "
                f"{self.itl_ms:g} ms = {self.itl:g} s).")

    def latency_mistakes(self):
        ttft, itl, n = self.ttft, self.itl, self.n_out
        return {
            "That counts n_out gaps after the first token: the first token arrives at the TTFT, so only n_out - 1 "
            "gaps follow.": ttft + n * itl,
            "The TTFT is missing: the wait for the first token is part of the latency.": (n - 1) * itl,
            "The TTFT is missing and there is one gap too many: the first token arrives at the TTFT, then n_out - 1 "
            "gaps follow.": n * itl,
            self._too_few_gaps(): ttft + (n - 2) * itl,
            self._itl_in_ms(): ttft + (n - 1) * self.itl_ms,
            "That is the worked example's latency: Part 1 is about another request, with its own TTFT, ITL and length.": WORKED_TTFT
            + (WORKED_N - 1) * WORKED_ITL,
        }

    def steady_mistakes(self):
        return {
            "That is the ITL itself, in ms: a time per token, where the steady rate counts tokens per second, one per "
            "ITL.": self.itl_ms,
            "That is the ITL itself, in seconds: a time per token, where the steady rate counts tokens per second, one "
            "per ITL.": self.itl,
            "That is the request's output rate, n_out / T, with the TTFT in it: the steady rate is 1 / ITL alone.": (
                self.rate
            ),
            f"That is tokens per millisecond (1 / {self.itl_ms:g}): one token per ITL in seconds gives tokens per "
            "second.": 1 / self.itl_ms,
            "That is the worked example's steady rate: Part 1 is about another deployment, with its own ITL.": 1 / WORKED_ITL,
        }

    def rate_mistakes(self):
        ttft, itl, n, latency = self.ttft, self.itl, self.n_out, self.latency
        return {
            "That is the steady decode rate, 1 / ITL: the request's output rate divides its tokens by its whole "
            "latency, TTFT included.": 1 / itl,
            "Only n_out - 1 tokens were counted: all n_out tokens arrive within the latency.": (n - 1) / latency,
            "The latency used has one gap too many (n_out gaps instead of n_out - 1).": n / (ttft + n * itl),
            "The TTFT is left out of the time: the user waits for it too.": n / ((n - 1) * itl),
            self._too_few_gaps(): n / (ttft + (n - 2) * itl),
            self._itl_in_ms(): n / (ttft + (n - 1) * self.itl_ms),
            "It is upside down: that is seconds per token, T / n_out.": latency / n,
            "That is tokens per millisecond (the latency in milliseconds): the question asks for tokens per second.": n
            / (latency * 1000),
            "That is n_out / TTFT: divide by the whole latency, not the wait for the first token.": n / ttft,
            "That is the worked example's output rate: Part 1 is about another request, with its own TTFT, ITL and length.": WORKED_N
            / (WORKED_TTFT + (WORKED_N - 1) * WORKED_ITL),
        }

    def mean_mistakes(self):
        total, slowest = sum(self.samples), max(self.samples)
        return {
            "That is the median: the mean is the sum divided by the count, and the slow request pulls it up.": (
                self.percentile(50)
            ),
            "That is the sum of the latencies, not their mean.": total,
            f"That is the mean without the slow request: the mean counts every sample (yours: {slowest:g} ms "
            "included).": (total - slowest) / 9,
            "The sum was divided by one fewer than the count (n - 1, as for a sample variance): the mean divides by the "
            "count of values.": total / 9,
        }

    def p50_mistakes(self):
        s, given = self.sorted, self.samples
        return {
            "That is the mean: the median is read off the sorted values, and one slow request cannot drag it up.": (
                self.mean
            ),
            MIDDLE: s[4],
            MIDDLE + " ": s[5],
            "The values were not sorted first: the median is the middle of the sorted list.": (given[4] + given[5]) / 2,
            "That is halfway between the smallest and the largest value, not the middle of the sorted values.": (
                s[0] + s[-1]
            ) / 2,
        }

    def p99_mistakes(self):
        s, given = self.sorted, self.samples
        return {
            "That is the largest value (nearest rank, or a rank of n x p / 100): with linear interpolation the rank is "
            "(n - 1) x 99 / 100 = 8.91, between the 9th and 10th sorted values.": s[-1],
            "That is the sorted value at floor(h), without interpolating: move 0.91 of the way to the next one.": s[8],
            "That moved 0.99 of the way: the fraction is h - floor(h), with h = (n - 1) x 99 / 100.": s[8]
            + 0.99 * (s[9] - s[8]),
            "The values were not sorted first: interpolate between the 9th and 10th sorted values.": given[8]
            + 0.91 * (given[9] - given[8]),
            "That is the mean, not a percentile.": self.mean,
            "That moved 0.9 of the way: the rank is 9 x 0.99 = 8.91, so the fraction is 0.91.": s[8]
            + 0.9 * (s[9] - s[8]),
        }


@question("latency_s")
def test_latency_s(learner, rq, params):
    part1 = Part1.of(params)
    rq.expect_value(
        "latency_s", learner.value("latency_s"), part1.latency,
        meaning=f"the end-to-end latency, in seconds, of a request with that TTFT, ITL and number of tokens {part1.yours}",
        unit="s",
        slips=part1.latency_mistakes(),
        hint="The first token arrives at the TTFT; n_out - 1 gaps of ITL follow, all in seconds.",
    )


@question("steady_tokens_per_s")
def test_steady_tokens_per_s(learner, rq, params):
    part1 = Part1.of(params)
    rq.expect_value(
        "steady_tokens_per_s", learner.value("steady_tokens_per_s"), part1.steady,
        meaning=f"the steady decode rate, in tokens per second, at that ITL (yours: {part1.itl_ms:g} ms)",
        unit="tokens/s",
        slips=part1.steady_mistakes(),
        hint="One token per ITL, with the ITL in seconds.",
    )


@question("request_tokens_per_s")
def test_request_tokens_per_s(learner, rq, params, other_params):
    part1 = Part1.of(params)
    # a latency right on another learner's numbers is a copied Part 1, not a slip: it carries nothing
    others = [Part1.of(p).latency for p in other_params]
    rq.expect_value(
        "request_tokens_per_s", learner.value("request_tokens_per_s"), part1.rate,
        meaning=f"the request's output rate over its whole latency, in tokens per second {part1.yours}",
        unit="tokens/s", abs_tol=0.05,
        slips=part1.rate_mistakes(),
        hint="Divide all n_out tokens by the whole latency T (latency_s), and keep one decimal place.",
        # Worked from the learner's own latency_s (its own check: REL_TOL, no abs_tol): a slip there costs once.
        carried=rq.Carried(
            (rq.Use.of(learner, "latency_s", part1.latency, others=others, known=part1.latency_mistakes().items()),),
            lambda t: part1.n_out / t, learner,
        ),
    )


@question("mean_ms")
def test_mean_ms(learner, rq, params):
    part1 = Part1.of(params)
    rq.expect_value(
        "mean_ms", learner.value("mean_ms"), part1.mean,
        meaning="the mean of the ten latencies, in ms",
        unit="ms",
        slips=part1.mean_mistakes(),
        hint="Add the ten latencies and divide by 10.",
    )


@question("p50_ms")
def test_p50_ms(learner, rq, params):
    part1 = Part1.of(params)
    rq.expect_value(
        "p50_ms", learner.value("p50_ms"), part1.percentile(50),
        meaning="the median (p50) of the ten latencies, in ms",
        unit="ms",
        slips=part1.p50_mistakes(),
        hint="Sort the ten values; the median is halfway between the 5th and 6th of them.",
    )


@question("p99_ms")
def test_p99_ms(learner, rq, params):
    part1 = Part1.of(params)
    rq.expect_value(
        "p99_ms", learner.value("p99_ms"), part1.percentile(99),
        meaning="the 99th percentile of the ten latencies, in ms",
        unit="ms",
        slips=part1.p99_mistakes(),
        hint="Sort; h = 9 x 0.99; start at the sorted value at floor(h) and move the fraction h - floor(h) towards the next.",
    )


# -- choices: why each wrong option is wrong, for the letters of the solution this was written against ----------------

WHY_NOT = {
    "answer_compare_engines": ("B", {
        "A": "Both pages say tokens/s, but not the same tokens/s: one replica can serve many requests at once, and "
             "a fleet's total is far above any one request's rate.",
        "C": "95 tokens/s is a plausible output rate for one request (TTFT included), not a sign of a fault.",
        "D": "A replica serving many requests at once can produce far more than one stream's rate in total.",
    }),
    "answer_tail_target": ("D", {
        "A": "A mean mixes a few slow requests into many fast ones: it can look fine while the tail does not. The "
             "target names the p99.",
        "B": "The target names the p99, the tail: the typical request is not what it constrains.",
        "C": "One day's requests are many samples; the p99 they give is what the target is checked against.",
    }),
    "answer_longer_reply": ("A", {
        "B": "Later decode steps read a longer KV cache, so they are if anything slower, not faster.",
        "C": "A request's output rate counts its own tokens over its own latency; no batch total is credited to it.",
        "D": "Every reply has n_out - 1 gaps; what does not grow with n_out is the TTFT.",
    }),
}

GENERAL = {
    "answer_compare_engines": "Which of the three tokens per second could each page be quoting?",
    "answer_tail_target": "Which statistic does the target name?",
    "answer_longer_reply": "Which part of T = TTFT + (n_out - 1) x ITL does not grow with n_out?",
}


choice_tests(globals(), GENERAL, WHY_NOT)
