"""The KV cache lesson (lesson 5 of the chapter) held to its own gates: every number its text shows is what its
functions compute, its formulas are Prefill's and Decode's (same names, same argument order), no by-hand answer
is on the learner's page, its choices do not give themselves away, and the suites' diagnosis can tell its slips
apart (every function's probes, every by-hand question's known slips). The generic gates (fresh build, full marks
and zero, corpus, audit) are tests/test_lesson_gates.py's."""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from grader.lessons import load_lesson
from grader.model import Lesson
from grader.suites.session import SuiteSession
from tests import lesson_support as page
from tests.conftest import REPO

LESSON = load_lesson("kv_cache")
SUITES = REPO / "exercises" / "kv_cache" / "suites"


def _module(name: str, suites: Path = SUITES) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{suites.parent.name}_suite_{name}", suites / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- every number in the text is the lesson's own -----------------------------------------------------------------


def _claims(r: Any) -> list[tuple[str, str, float, float]]:
    """(a passage of the text, the number it shows, that number computed, relative tolerance or 0 for half a unit
    of the last digit shown)."""
    per = r.kv_bytes_per_token(80, 8, 128, 2)
    mha = r.kv_bytes_per_token(80, 64, 128, 2)
    budget = r.kv_budget_bytes(282e9, 70e9, 0.1)
    seq = per * 8192
    long = per * 128 * 1024
    step = r.kv_step_seconds(70e9, per, 8192, 9.6e12)
    weights_only = r.kv_step_seconds(70e9, per, 0, 9.6e12)
    even = 70e9 / per
    return [
        ("2 x 80 x 8 x 128 x 2 = **327,680 bytes**", "327680", per, 0),
        ("0.328 MB (exactly 0.3125 MiB)", "0.328", per / 1e6, 0),
        ("0.328 MB (exactly 0.3125 MiB)", "0.3125", per / 2**20, 1e-12),
        ("2 x 80 x 64 x 128 x 2 = **2,621,440 bytes**", "2621440", mha, 0),
        ("2.62 MB per token: 64 / 8 = 8 times as much", "2.62", mha / 1e6, 0),
        ("2.62 MB per token: 64 / 8 = 8 times as much", "8", mha / per, 1e-12),
        ("2 x 141 = 282 GB on the replica (262.6 GiB)", "262.6", 282e9 / 2**30, 0),
        ("282 x 0.9 = 253.8 GB is usable", "253.8", r.kv_budget_bytes(282e9, 0, 0.1) / 1e9, 0),
        ("a KV budget of **183.8 GB** (171.2 GiB)", "183.8", budget / 1e9, 0),
        ("a KV budget of **183.8 GB** (171.2 GiB)", "171.2", budget / 2**30, 0),
        ("183.8e9 / 327,680 = 560,913.09", "560913.09", budget / per, 0),
        ("so **560,913 tokens**", "560913", r.max_tokens(budget, per), 1e-12),
        ("327,680 x 8,192 = 2,684,354,560 bytes", "2684354560", seq, 1e-12),
        ("2,684,354,560 bytes, **2.68 GB**, which is exactly 2.5 GiB", "2.68", seq / 1e9, 0),
        ("2,684,354,560 bytes, **2.68 GB**, which is exactly 2.5 GiB", "2.5", seq / 2**30, 1e-12),
        ("183.8e9 / 2,684,354,560 = 68.47", "68.47", budget / seq, 0),
        ("so **68 sequences** fit", "68", r.max_sequences(budget, per, 8192), 1e-12),
        ("With multi-head attention only 8 would", "8", r.max_sequences(budget, mha, 8192), 1e-12),
        ("one sequence needs 42.9 GB", "42.9", long / 1e9, 0),
        ("and only **4** fit", "4", r.max_sequences(budget, per, 128 * 1024), 1e-12),
        ("that is **7.57 ms**, against 7.29 ms", "7.57", step * 1e3, 0),
        ("that is **7.57 ms**, against 7.29 ms", "7.29", weights_only * 1e3, 0),
        ("the cache is 3.7% of the bytes", "3.7", seq / (70e9 + seq) * 100, 0),
        ("about 10 ms, as lesson *Decode* says", "10", 70e9 / (0.73 * 9.6e12) * 1e3, 0),
        ("70e9 / 327,680 = **213,623 tokens**", "213623", even, 0),
        ("where the cache is 61% of the weights' bytes", "61", long / 70e9 * 100, 0),
        ("a step takes 11.8 ms", "11.8", r.kv_step_seconds(70e9, per, 128 * 1024, 9.6e12) * 1e3, 0),
        (
            "lesson 6 (*Batching and throughput*) shows what happens when 68 conversations",
            "68",
            r.max_sequences(budget, per, 8192),
            1e-12,
        ),
        ("would make the cache 8 times too big", "8", mha / per, 1e-12),
        ("2.68 GB but 2.5 GiB", "2.5", seq / 2**30, 1e-12),
        ("Mixing them is a 7% error", "7", (2**30 / 1e9 - 1) * 100, 0),
        ("70 GB of weights, a quarter of its memory", "0.25", 70e9 / 282e9, 0.02),
        ("is 2.68 GB and exactly 2.5 GiB", "2.68", seq / 1e9, 0),
        ("about 0.34 GB per sequence", "0.34", seq / 8 / 1e9, 0),
        ("2^30 = 1,073,741,824 bytes", "1073741824", 2**30, 0),
        ("81,559 MiB, about 85.5 GB", "85.5", 81_559 * 2**20 / 1e9, 0),
    ]


def test_every_number_the_text_claims_is_what_the_lessons_functions_compute() -> None:
    assert page.wrong_claims(page.prose(LESSON), _claims(page.reference(LESSON))) == []


#: Bold text that starts with a digit but states a formula, a shape or an assumption, not a computed number.
FORMULAS = (
    "**80 layers, 64 query heads, 8 KV heads, head dimension 128**",
    "**10%**",
)


def test_every_bold_number_in_the_text_has_a_claim() -> None:
    claims = _claims(page.reference(LESSON))
    assert page.unclaimed_bold_numbers(page.prose(LESSON), claims, FORMULAS) == []


def test_the_chapter_replica_and_shapes_agree_with_prefill_and_decode() -> None:
    """The same formula and argument order as Prefill's kv_bytes_written (per token) and the same kv_step_seconds
    as Decode's, on the chapter's replica (about 10 ms a token at about 73% of 9.6 TB/s)."""
    r = page.reference(LESSON)
    prefill, decode = (
        _module("conftest", REPO / "exercises/prefill/suites"),
        _module("conftest", REPO / "exercises/decode/suites"),
    )
    shape = (80, 8, 128, 2)
    assert r.kv_bytes_per_token(*shape) * 4000 == prefill.kv_bytes_written(4000, *shape) == 1_310_720_000
    assert (
        list(inspect.signature(r.kv_bytes_per_token).parameters)
        == list(inspect.signature(prefill.kv_bytes_written).parameters)[1:]
    )
    assert list(inspect.signature(r.kv_step_seconds).parameters) == list(
        inspect.signature(decode.kv_step_seconds).parameters
    )
    for args in ((70e9, 327_680, 8192, 9.6e12), (14e9, 5e5, 1000, 1e12), (16e9, 131_072, 0, 3.35e12)):
        assert r.kv_step_seconds(*args) == decode.kv_step_seconds(*args)
    assert 0.009 <= r.kv_step_seconds(70e9, 327_680, 0, 0.73 * 9.6e12) <= 0.011


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    assert page.wrong_docstring_examples(LESSON, page.reference(LESSON)) == []


# -- no by-hand answer on the learner's page -------------------------------------------------------------------------


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    r = page.reference(LESSON)
    seen = page.learner_page(LESSON)
    by_hand = [q.id for q in LESSON.questions if q.kind == "value"]
    assert len(by_hand) == 4
    for name in by_hand:
        assert page.on_page(float(getattr(r, name)), seen) == [], name


def test_the_check_catches_an_answer_left_on_the_page() -> None:
    """The search above can fail: 52 sequences written into the text would be found."""
    seen = page.learner_page(LESSON) + "\nso 52 sequences fit"
    assert page.on_page(float(page.reference(LESSON).sequences_fit), seen) == ["52"]


# -- choices -----------------------------------------------------------------------------------------------------------


def test_no_right_option_is_the_longest_and_the_right_letters_vary() -> None:
    assert all(len(o) == 4 for o in page.choice_options(LESSON).values())
    assert page.longest_right_options(LESSON, page.reference(LESSON)) == []


# -- the suites can tell the slips apart ----------------------------------------------------------------------------


def _apart(suite: ModuleType, name: str, x: float, y: float) -> bool:
    """Told apart by the suites' own comparison (exact for a count), and for other numbers by ten times its
    tolerance, so float noise cannot blur them."""
    return not suite.NUMBERS.same(name, x, y) and (name in suite.COUNTS or not math.isclose(x, y, rel_tol=1e-5))


def test_the_probes_separate_every_slip_of_each_function() -> None:
    """On each function's probes, the right answer and every slip give different results (as a whole: a slip
    may be right on one probe, as rounding to nearest is below a half)."""
    suite = _module("conftest")
    for name, slips in suite.SLIPS.items():
        probes = suite.PROBES[name]
        rows = [tuple(suite.SPEC[name](**p) for p in probes)]
        rows += [tuple(suite.NUMBERS.slip_value(name, rule, p) for p in probes) for _, rule in slips]
        for (i, a), (j, b) in itertools.combinations(enumerate(rows), 2):
            assert any(_apart(suite, name, x, y) for x, y in zip(a, b, strict=True)), (name, i, j)


def test_a_slip_is_named_only_when_every_result_fits_it() -> None:
    """Rounding to nearest is named from a wrong result plus the probes (right below a half, wrong above); a result
    no slip explains gets no name."""
    suite = _module("conftest")
    name = "max_sequences"
    first = {"budget_bytes": 7 * 2**29 + 3 * 2**29 // 4, "kv_bytes_per_token": 131_072, "context_len": 4096}  # 7.75
    rounding = next(rule for sentence, rule in suite.SLIPS[name] if sentence.startswith("rounded to the nearest"))
    seen = [(rounding(**first), first)] + [(rounding(**p), p) for p in suite.PROBES[name]]
    assert [s[:30] for s in suite.NUMBERS.consistent_slips(name, seen)] == ["rounded to the nearest whole n"]
    odd = [(12345.0, first)] + [(suite.SPEC[name](**p), p) for p in suite.PROBES[name]]
    assert suite.NUMBERS.consistent_slips(name, odd) == []


def test_the_by_hand_slips_are_far_apart_and_the_expected_values_are_the_solutions() -> None:
    """On the page's numbers the suites expect the solution's answers. On every combination a learner can get
    (lesson.toml's [params]): each right answer is apart from every known slip (by more than its tolerance and
    naming's 0.2%; the count, compared exactly, only differs), no count of
    sequences is a whole quotient (rounding up would be right) or a handful, the context rounded to 3 significant
    figures (as the page allows) is right, and no answer is the worked example's."""
    from grader.params import every_params

    values: Any = _module("test_values")
    r = page.reference(LESSON)
    first = values.Part1.of(dict(every_params(LESSON)[0]))
    for name in values.REL:
        assert math.isclose(float(getattr(r, name)), first.value(name), rel_tol=1e-9), name
    sets = every_params(LESSON)
    assert len(sets) == 36
    for params in sets:
        part1 = values.Part1.of(dict(params))
        for name in values.REL:
            rel = part1.rel(name)
            expected = part1.value(name)
            known = [v for _, v in part1.known(name)]
            for v in known:
                if name == "sequences_fit":  # compared exactly, as a whole number
                    assert v != expected, (params, name, v)
                else:
                    assert _rel(v, expected) > max(rel, 2e-3) + 2e-3, (params, name, v)
        rounded = float(f"{part1.even_context:.3g}")  # the page allows 3 significant figures
        assert abs(rounded / part1.even_context - 1) <= part1.rel("even_context"), params
        fraction = part1.budget / part1.seq - part1.sequences_fit
        assert 0.02 < fraction < 1 and part1.sequences_fit >= 8, params
        for name, worked in zip(values.REL, values.WORKED, strict=True):
            assert _rel(part1.value(name), worked) > 0.01, (params, name)


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def test_two_slips_that_give_the_same_number_are_named_together_and_a_count_only_exactly() -> None:
    """On the page's numbers K-or-V-only and an FP8 cache both halve the bytes per token: one sentence names both.
    On Mistral-NeMo-12B (40 layers) the worked example's 80 layers halve the sequences, as the factor 2 counted
    twice does. A whole count is named only by a slip giving exactly it: one sequence off the "rounded up" slip's
    count is not that slip, however close (at hundreds of sequences one is less than 0.2%)."""
    from grader.params import every_params

    values: Any = _module("test_values")
    sets = [values.Part1.of(dict(p)) for p in every_params(LESSON)]
    mine = sets[0]
    ((half, _),) = mine.named("token_bytes", mine.per_token / 2)
    assert "K or V only" in half and "FP8" in half
    nemo = next(s for s in sets if s.layers == 40)
    ((halved, _),) = nemo.named("sequences_fit", nemo.budget // (2 * nemo.seq))
    assert "80 layers" in halved and "counted twice" in halved, halved
    many = max(sets, key=lambda s: s.sequences_fit)
    assert many.sequences_fit > 500
    ((up, _),) = many.named("sequences_fit", many.sequences_fit + 1)
    assert "rounded up" in up
    assert not many.named("sequences_fit", many.sequences_fit + 2)
    ((unrounded, _),) = many.named("sequences_fit", many.budget / many.seq)
    assert "not rounded down" in unrounded


# -- Part 1 on each learner's own numbers, through the hidden suites ------------------------------------------------

PART1 = ("token_bytes", "budget_gb", "sequences_fit", "even_context")


def _answers(numbers: dict[str, Any]) -> dict[str, Any]:
    """Part 1 worked right for ``numbers``, by the lesson's own formulas (not the suites')."""
    r = page.reference(LESSON)
    per = r.kv_bytes_per_token(numbers["n_layers"], numbers["n_kv_heads"], numbers["head_dim"], 2)
    weights = float(numbers["params_b"]) * 1e9 * 2
    budget = r.kv_budget_bytes(float(numbers["memory_gb"]) * 1e9, weights, 0.1)
    return {
        "token_bytes": per,
        "budget_gb": budget / 1e9,
        "sequences_fit": r.max_sequences(budget, per, numbers["context"]),
        "even_context": weights / per,
    }


@pytest.fixture(scope="module")
def kv_suites(suite_session: Callable[[Lesson], SuiteSession]) -> SuiteSession:
    return suite_session(LESSON)


@pytest.mark.slow
def test_two_learners_each_get_full_marks_only_for_their_own_numbers(kv_suites: SuiteSession) -> None:
    """Learners drawn onto different models, accelerators and contexts: each one's own answers pass on their
    numbers, and every Part 1 answer worked on the other's numbers fails (none coincides)."""
    from grader.params import draw
    from grader.suites.namespace import NamespaceTarget

    secret = b"a-course-secret-for-this-test-only"
    drawn = {who: draw(LESSON, who, secret) for who in ("ada", "bob", "cy", "dee", "eve", "fay")}
    apart = [
        (a, b)
        for a in drawn
        for b in drawn
        if all(dict(drawn[a])[f] != dict(drawn[b])[f] for f in ("model", "gpu", "context"))
    ]
    ada, bob = apart[0]
    questions = frozenset(PART1)
    for mine, theirs in ((drawn[ada], drawn[bob]), (drawn[bob], drawn[ada])):
        own = kv_suites.run(NamespaceTarget(_answers(dict(mine))), questions, mine)
        assert {o.status for o in own} == {"passed"}, own
        copied = kv_suites.run(NamespaceTarget(_answers(dict(theirs))), questions, mine)
        assert {o.status for o in copied} == {"failed"}, copied


@pytest.mark.slow
def test_a_slip_is_named_on_every_learners_numbers_and_costs_only_its_own_question(kv_suites: SuiteSession) -> None:
    """The query heads for the KV heads, on every set the corpus grades: in token_bytes alone it is named with the
    learner's own head counts, and the answers worked from that token_bytes (sequences_fit, even_context) keep
    their points, carried forward, with a note naming token_bytes. Made in even_context alone (token_bytes right) it
    is named there. No message a learner sees states a right answer."""
    from grader.params import spread
    from grader.reveal import learner_view
    from grader.suites.namespace import NamespaceTarget

    values: Any = _module("test_values")
    for params in spread(LESSON):
        numbers = dict(params)
        right = _answers(numbers)
        part1 = values.Part1.of(numbers)
        per_token = right["token_bytes"] * part1.ratio
        chain = {
            "token_bytes": per_token,
            "budget_gb": right["budget_gb"],
            "sequences_fit": int(part1.budget // (per_token * part1.context)),
            "even_context": part1.weights / per_token,
        }
        target = NamespaceTarget(chain)
        outcomes = {o.question: o for o in kv_suites.run(target, frozenset(PART1), params)}
        assert outcomes["token_bytes"].status == "failed", (params, outcomes)
        assert {outcomes[q].status for q in PART1 if q != "token_bytes"} == {"passed"}, (params, outcomes)
        assert outcomes["sequences_fit"].carried == outcomes["even_context"].carried == ("token_bytes",)
        assert outcomes["budget_gb"].carried == ()
        alone = {**right, "even_context": right["even_context"] / part1.ratio}
        (slip,) = kv_suites.run(NamespaceTarget(alone), frozenset({"even_context"}), params)
        for outcome in (outcomes["token_bytes"], slip):
            assert outcome.status == "failed" and "query heads" in outcome.message, (params, outcome.message)
            assert f"has {numbers['n_heads']}" in outcome.message, outcome.message
            for value in right.values():
                assert page.on_page(float(value), learner_view(outcome.message)) == [], (params, outcome.message)


def test_a_part1_handed_in_from_another_set_is_never_credited_carried_forward(kv_suites: SuiteSession) -> None:
    """A classmate's Part 1 (or a swapped notebook's) earns no point carried forward from its copied answers."""
    assert page.copies_credited(kv_suites, LESSON, _answers, PART1) == []


def test_a_known_slip_in_the_one_answer_that_tells_two_contexts_apart_is_not_called_a_copy(
    kv_suites: SuiteSession,
) -> None:
    """The context changes sequences_fit only. K or V only (half of each sequence's cache) in it alone gives, at
    4,096 tokens, the right count at 2,048 on the same model and chip: that one answer is all that tells the two
    sets apart, and a known slip on the learner's own numbers gives it, so it is named and never flagged. The same
    count handed in where no slip of the learner's gives it (another model's) keeps the flag."""
    from grader.params import every_params, other_numbers_note
    from grader.suites.namespace import NamespaceTarget

    values: Any = _module("test_values")
    sets = every_params(LESSON)
    mine = next(p for p in sets if dict(p)["context"] == 4096)
    half = next(
        p for p in sets if dict(p)["context"] == 2048 and all(dict(p)[f] == dict(mine)[f] for f in ("model", "gpu"))
    )
    part1 = values.Part1.of(dict(mine))
    answers = {**_answers(dict(mine)), "sequences_fit": int(part1.budget // (part1.seq / 2))}
    assert answers["sequences_fit"] == _answers(dict(half))["sequences_fit"]

    def graded(answers: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        target = NamespaceTarget(answers)
        outcomes = kv_suites.run(target, frozenset(PART1), mine)
        note = other_numbers_note(LESSON, mine, outcomes, lambda qs, other: kv_suites.run(target, qs, other))
        return {o.question: o for o in outcomes}, note

    outcomes, note = graded(answers)
    fit = outcomes["sequences_fit"]
    assert fit.status == "failed" and fit.slip and "K or V only" in fit.message, fit
    assert {outcomes[q].status for q in PART1 if q != "sequences_fit"} == {"passed"}, outcomes
    assert note is None, note
    other = next(
        p
        for p in sets
        if dict(p)["model"] != dict(mine)["model"]
        and dict(p)["gpu"] == dict(mine)["gpu"]
        and dict(p)["context"] == dict(mine)["context"]
    )
    copied, note = graded(_answers(dict(other)))
    assert not any(o.slip for o in copied.values() if o.status == "failed" and o.question == "token_bytes")
    assert note is not None, copied
