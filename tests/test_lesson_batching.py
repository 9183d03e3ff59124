"""The Batching lesson (lesson 6 of the chapter) held to its own checks: every number its text shows is what its
functions compute, its step is lesson 3's ``kv_step_seconds`` at a batch of 1 and its fleet rate lesson 1's, no
by-hand answer is on the learner's page, its choices do not give themselves away, and the suites' diagnosis can
tell its slips apart (a probe per function, a panel for the count). The generic gates (fresh build, full marks
and zero, corpus, audit) are tests/test_lesson_gates.py's."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import pytest

from grader.lessons import load_lesson
from grader.model import Lesson
from grader.suites.session import SuiteSession
from tests import lesson_support as page

LESSON = load_lesson("batching")
SUITES = LESSON.suites

#: The chapter's replica (CHAPTER.md): 70 GB of FP8 weights, Llama-3-70B's BF16 cache, two H200s.
W, KV, BW = 70e9, 2 * 80 * 8 * 128 * 2, 9.6e12


def _module(name: str) -> Any:
    return page.suite_module(LESSON, name)


def _reference(lesson_id: str = "batching") -> Any:
    return page.reference(load_lesson(lesson_id))


# -- every number in the text is the lesson's own -----------------------------------------------------------------


def _claims(r: Any) -> list[page.Claim]:
    """(a passage of the text, the number it shows, that number computed, relative tolerance or 0 for half a unit
    of the last digit shown)."""

    def step(batch: int) -> float:
        return float(r.batch_step_seconds(W, KV, 4000, batch, BW))

    def fleet(batch: int) -> float:
        return float(r.fleet_tokens_per_s(W, KV, 4000, batch, BW))

    def gb(batch: int) -> float:
        return (W + batch * 4000 * KV) / 1e9

    fits = (0.020 * BW - W) / (4000 * KV)
    b20 = r.max_batch_for_itl(W, KV, 4000, 0.020, BW)
    latency = 0.5 + 499 * 0.020
    dense_pair = 2 * 1.979e15
    return [
        ("at best a token about every 7.4 ms", "7.4", step(1) * 1e3, 0),
        ("k = 2 x 80 x 8 x 128 x 2 = 327,680 bytes per token", "327680", KV, 0),
        ("a 4,000-token sequence holds **1.31 GB** of cache", "1.31", 4000 * KV / 1e9, 0),
        ("(70e9 + 1.31e9) / 9.6e12 = **7.43 ms** per step", "7.43", step(1) * 1e3, 0),
        ("**134.6 tokens/s** in all", "134.6", fleet(1), 0),
        ("(70e9 + 64 x 1.31e9) / 9.6e12 = 153.9e9 / 9.6e12", "153.9", gb(64), 0),
        ("153.9e9 / 9.6e12 = **16.03 ms**", "16.03", step(64) * 1e3, 0),
        ("each user's ITL more than doubles", "2", step(64) / step(1), 0.1),
        ("64 / 0.01603 = **3,993 tokens/s**", "3993", fleet(64), 0),
        ("about 30 times the single stream's", "30", fleet(64) / fleet(1), 0.02),
        ("about 58 FLOPs per byte", "58", 2 * 70e9 * 64 / (gb(64) * 1e9), 0),
        ("far below the H200's FP8 ridge point of 412", "412", 1.979e15 / 4.8e12, 0),
        ("2 x 141 x 0.9 - 70 = 183.8 GB", "183.8", 2 * 141 * 0.9 - 70, 0),
        ("room for 140 sequences of 1.31 GB", "140", math.floor((2 * 141e9 * 0.9 - 70e9) / (4000 * KV)), 0),
        ("(140 sequences of 4,000 tokens fit", "140", math.floor((2 * 141e9 * 0.9 - 70e9) / (4000 * KV)), 0),
        ("(0.020 x 9.6e12 - 70e9) / 1.31e9 = 93.08", "93.08", fits, 0),
        ("so B_max = **93**", "93", b20, 0),
        ("93 sequences take 19.99 ms a step", "19.99", step(93) * 1e3, 0),
        ("94 take 20.13 ms", "20.13", step(94) * 1e3, 0),
        ("the fleet rate there is **4,652 tokens/s**", "4652", fleet(93), 0),
        ("0.007 x 9.6e12 = 67.2e9 bytes", "67.2", 0.007 * BW / 1e9, 0),
        ("so B_max = **0**", "0", r.max_batch_for_itl(W, KV, 4000, 0.007, BW), 0),
        ("one user already waits 7.3 ms a token for the weights", "7.3", W / BW * 1e3, 0),
        ("0.5 + 499 x 0.020 = **10.48 s**", "10.48", latency, 0),
        ("8 x 10.48 = **83.84** are in flight", "83.84", r.in_flight(8, 10.48), 0),
        ("fewer than 93, so the replica keeps up", "93", b20, 0),
        ("93 / 10.48 = **8.87 requests per second**", "8.87", b20 / latency, 0),
        ("The one-user step reads 71.3 GB for one token", "71.3", gb(1), 0),
        ("the 64-user step reads 153.9 GB for 64 tokens", "153.9", gb(64), 0),
        ("70e9 / 9.6e12 = 7.3 ms a token", "7.3", W / BW * 1e3, 0),
        ("/ 7.43 ms / 3.958e15 = **0.48%** at B = 1", "0.48", 2 * 70e9 / step(1) / dense_pair * 100, 0),
        ("and **14.1%** at B = 64", "14.1", 2 * 70e9 * 64 / step(64) / dense_pair * 100, 0),
        ("a batch of 93.08 does not exist, and 94 misses the target", "93.08", fits, 0),
        ("the step grows from about 11.7 to 16.0 ms", "11.7", step(32) * 1e3, 0),
        ("71 GB for one token at night, 154 GB for 64 at noon", "154", gb(64), 0),
        ("The night user is only about 2 times faster", "2", step(64) / step(1), 0.1),
        ("10 x 10.5 = 105 requests", "105", r.in_flight(10, 10.5), 0),
        ("more than its 93 places", "93", b20, 0),
        ("The ITL target caps B (93 at 20 ms here)", "93", b20, 0),
        ("at B ≈ 412 x 1 / 2 = 206 sequences", "206", 1.979e15 / 4.8e12 * 1 / 2, 0),
    ]


def test_every_number_the_text_claims_is_what_the_lessons_functions_compute() -> None:
    assert page.wrong_claims(page.prose(LESSON) + " " + _suite_texts(), _claims(_reference())) == []


def _suite_texts() -> str:
    """The suites' feedback sentences (one claim, the step at a batch of 32, is in a wrong option's explanation)."""
    return " ".join((SUITES / "test_values.py").read_text(encoding="utf-8").split())


#: Bold text that starts with a digit but states a given, not a computed number.
GIVENS = ("**70B-parameter model in FP8**", "**20 ms**", "**7 ms**")


def test_every_bold_number_in_the_text_has_a_claim() -> None:
    assert page.unclaimed_bold_numbers(LESSON, _claims(_reference()), GIVENS) == []


def test_the_step_builds_on_decodes_kv_step_seconds_and_the_fleet_rate_is_requests() -> None:
    """At a batch of 1 the step is lesson 3's kv_step_seconds; the fleet rate is lesson 1's sum of 1 / ITL over
    the batch's streams, every one of which waits one step."""
    r, decode, request = _reference(), _reference("decode"), _reference("request")
    for context in (1, 4000, 32_768):
        assert math.isclose(r.batch_step_seconds(W, KV, context, 1, BW), decode.kv_step_seconds(W, KV, context, BW))
    for batch in (1, 7, 64):
        step = r.batch_step_seconds(W, KV, 4000, batch, BW)
        fleet = r.fleet_tokens_per_s(W, KV, 4000, batch, BW)
        assert math.isclose(fleet, request.fleet_tokens_per_second([step] * batch))


def test_the_replica_is_memory_bound_and_holds_the_batches_the_text_uses() -> None:
    """At every batch the plot draws (up to 160) a step's FLOPs per byte read stay below the H200's FP8 ridge point,
    so the memory-bound model holds; and the caches of the 20 ms target's batch fit beside the weights."""
    r = _reference()
    ridge = 1.979e15 / 4.8e12
    for batch in (1, 64, 93, 160):
        bytes_read = r.batch_step_seconds(W, KV, 4000, batch, BW) * BW
        assert 2 * 70e9 * batch / bytes_read < ridge
    assert r.max_batch_for_itl(W, KV, 4000, 0.020, BW) * 4000 * KV <= 2 * 141e9 - W


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    assert page.wrong_docstring_examples(LESSON, _reference()) == []


# -- no by-hand answer on the learner's page -------------------------------------------------------------------------


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    r = _reference()
    seen = page.learner_page(LESSON)
    by_hand = [q.id for q in LESSON.questions if q.kind == "value"]
    assert len(by_hand) == 4
    for name in by_hand:
        assert page.on_page(float(getattr(r, name)), seen) == [], name


def test_the_check_catches_an_answer_left_on_the_page() -> None:
    """The search above can fail: the Part 1 count written into the text would be found."""
    seen = page.learner_page(LESSON) + f"\nat most {_reference().max_batch} sequences"
    assert page.on_page(float(_reference().max_batch), seen)


# -- choices -----------------------------------------------------------------------------------------------------------


def test_no_right_option_is_the_longest_and_the_right_letters_vary() -> None:
    r = _reference()
    assert all(len(o) == 4 for o in page.choice_options(LESSON).values())
    assert page.longest_right_options(LESSON, r) == []
    assert sorted(getattr(r, q.id).strip().upper() for q in LESSON.questions if q.kind == "choice") == list("ABCD")


# -- the suites can tell the slips apart ----------------------------------------------------------------------------


def test_each_probe_separates_every_slip_of_its_function() -> None:
    suite = _module("conftest")
    for name, slips in suite.SLIPS.items():
        probe = suite.PROBES[name]
        args = [probe[p] for p in suite.PARAMS[name]]
        values = [suite.SPEC[name](**probe)] + [rule(*args) for _, rule in slips]
        for (i, a), (j, b) in itertools.combinations(enumerate(values), 2):
            assert not math.isclose(a, b, rel_tol=1e-4), (name, slips[i - 1][0] if i else "right", slips[j - 1][0])


def test_the_panel_tells_every_wrong_count_from_the_others_and_from_the_right_one() -> None:
    suite = _module("conftest")
    weights, per_token, context, bandwidth = suite.PANEL_REPLICA
    right = tuple(
        float(suite.max_batch_for_itl(weights, per_token, context, suite.panel_target(fits), bandwidth))
        for fits in suite.PANEL
    )
    answers = [right] + [tuple(float(a) for a in suite.count_answers(rule)) for _, rule in suite.WRONG_COUNTS]
    assert len(set(answers)) == len(answers)


def test_the_panel_targets_are_exact() -> None:
    """Every panel target is a dyadic number, so the ties are ties however the learner writes the formula."""
    suite = _module("conftest")
    weights, per_token, context, bandwidth = suite.PANEL_REPLICA
    for fits in suite.PANEL:
        target = suite.panel_target(fits)
        assert (target * bandwidth - weights) / (context * per_token) == fits
        assert suite.batches_that_fit(weights, per_token, context, target, bandwidth) == fits


def test_the_by_hand_slips_are_far_apart_and_the_expected_values_are_the_solutions() -> None:
    """On the page's numbers the suites expect the solution's answers. On every combination a learner can get
    (lesson.toml's [params]): each right answer is apart from every known slip (by more than its tolerance and
    naming's 0.2%; the largest batch, compared exactly, only differs), the
    rates rounded to 3 significant figures (as the page allows) are right, the largest batch is no whole quotient
    (rounding up would be right) and no handful, and the Part 1 batch meets the 10 ms target."""
    from grader.params import every_params

    values: Any = _module("test_values")
    r = _reference()
    sets = every_params(LESSON)
    first = values.Part1.of(dict(sets[0]))
    for name in values.NAMES:
        assert math.isclose(float(getattr(r, name)), first.value(name), rel_tol=1e-9), name
    assert len(sets) == 36
    for params in sets:
        part1 = values.Part1.of(dict(params))
        for name in values.NAMES:
            expected, rel = part1.value(name), part1.rel(name)
            known = [v for _, v in part1.known(name)]
            for v in known:
                if name == "max_batch":  # compared exactly, as a whole number
                    assert v != expected, (params, name, v)
                else:  # accepted, then named within 0.2%
                    assert _rel(v, expected) > max(rel, 2e-3) + 2e-3, (params, name, v)
        for name in ("step_ms", "fleet_rate"):
            rounded = float(f"{part1.value(name):.3g}")
            assert _rel(rounded, part1.value(name)) <= part1.rel(name), (params, name)
        assert 0.02 < part1.fits - part1.max_batch < 0.98 and part1.max_batch >= 8, params
        assert part1.batch < part1.fits, params


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def test_two_slips_that_give_about_the_same_number_are_named_together() -> None:
    """Qwen2.5-14B on an H200 at a batch of 16: the weights at 2 bytes give a step within 0.1% of the worked
    example's 7.43 ms, so a learner's number there names both slips in one sentence (not "not sure"); and the
    largest batch left unrounded is named as such even where it is within 0.2% of the next whole batch."""
    from grader.params import every_params

    values: Any = _module("test_values")
    sets = [values.Part1.of(dict(p)) for p in every_params(LESSON)]
    qwen = next(s for s in sets if s.layers == 48 and s.tb_per_s == 4.8 and s.batch == 16)
    two_bytes = (2 * qwen.weights + qwen.batch * qwen.seq) / qwen.bandwidth * 1e3
    ((both, _),) = qwen.named("step_ms", two_bytes)
    assert both.startswith("one of 2 slips") and "2 bytes per parameter" in both and "worked example" in both
    for part1 in sets:
        ((unrounded, _),) = part1.named("max_batch", part1.fits)
        assert "unrounded" in unrounded, part1


# -- Part 1 on each learner's own numbers, through the hidden suites ------------------------------------------------

PART1 = ("step_ms", "fleet_rate", "max_batch", "requests_in_flight")


def _answers(numbers: dict[str, Any]) -> dict[str, Any]:
    """Part 1 worked right for ``numbers``, by the lesson's own functions (not the suites')."""
    r = _reference()
    per = 2 * numbers["n_layers"] * numbers["n_kv_heads"] * numbers["head_dim"] * 2
    weights, bandwidth = float(numbers["params_b"]) * 1e9, float(numbers["tb_per_s"]) * 1e12
    step = r.batch_step_seconds(weights, per, numbers["context"], numbers["batch"], bandwidth)
    return {
        "step_ms": step * 1e3,
        "fleet_rate": r.fleet_tokens_per_s(weights, per, numbers["context"], numbers["batch"], bandwidth),
        "max_batch": r.max_batch_for_itl(weights, per, numbers["context"], 0.010, bandwidth),
        "requests_in_flight": r.in_flight(numbers["rate"], numbers["latency"]),
    }


@pytest.fixture(scope="module")
def batching_suites(suite_session: Callable[[Lesson], SuiteSession]) -> SuiteSession:
    return suite_session(LESSON)


@pytest.mark.slow
def test_two_learners_each_get_full_marks_only_for_their_own_numbers(batching_suites: SuiteSession) -> None:
    """Learners drawn onto different models, accelerators and loads: each one's own answers pass on their
    numbers, and every Part 1 answer worked on the other's numbers fails (none coincides)."""
    from grader.params import draw
    from grader.suites.namespace import NamespaceTarget

    secret = b"a-course-secret-for-this-test-only"
    drawn = {who: draw(LESSON, who, secret) for who in ("ada", "bob", "cy", "dee", "eve", "fay", "gus", "hal")}
    fields = ("model", "gpu", "batch")
    apart = [(a, b) for a in drawn for b in drawn if all(dict(drawn[a])[f] != dict(drawn[b])[f] for f in fields)]
    ada, bob = apart[0]
    for mine, theirs in ((drawn[ada], drawn[bob]), (drawn[bob], drawn[ada])):
        own = batching_suites.run(NamespaceTarget(_answers(dict(mine))), frozenset(PART1), mine)
        assert {o.status for o in own} == {"passed"}, own
        copied = batching_suites.run(NamespaceTarget(_answers(dict(theirs))), frozenset(PART1), mine)
        assert {o.status for o in copied} == {"failed"}, copied


@pytest.mark.slow
def test_a_slip_is_named_on_every_learners_numbers_and_costs_only_its_own_question(
    batching_suites: SuiteSession,
) -> None:
    """The weights read once per sequence, on every set the corpus grades: in step_ms it is named with the
    learner's own weights, and the fleet rate worked from that step keeps its points, carried forward, noted as
    following from step_ms; a fleet rate wrong on the learner's own step too still fails, its slip named. No
    message a learner sees states a right answer."""
    from grader.params import spread
    from grader.reveal import learner_view
    from grader.suites.namespace import NamespaceTarget

    for params in spread(LESSON):
        n = dict(params)
        right = _answers(n)
        per = 2 * n["n_layers"] * n["n_kv_heads"] * n["head_dim"] * 2
        weights, bandwidth = float(n["params_b"]) * 1e9, float(n["tb_per_s"]) * 1e12
        step_ms = n["batch"] * (weights + n["context"] * per) / bandwidth * 1e3
        chain = {**right, "step_ms": step_ms, "fleet_rate": n["batch"] / (step_ms / 1e3)}
        outcomes = {o.question: o for o in batching_suites.run(NamespaceTarget(chain), frozenset(PART1), params)}
        step = outcomes["step_ms"]
        assert step.status == "failed" and "once per sequence" in step.message, (params, step.message)
        assert f"{n['params_b']:g} GB of weights" in step.message, step.message
        assert {outcomes[q].status for q in PART1 if q != "step_ms"} == {"passed"}, (params, outcomes)
        assert outcomes["fleet_rate"].carried == ("step_ms",)
        per_user = {**chain, "fleet_rate": 1 / (step_ms / 1e3)}  # one user's rate, on either step
        (rate,) = batching_suites.run(NamespaceTarget(per_user), frozenset({"fleet_rate"}), params)
        assert rate.status == "failed" and rate.carried == (), (params, rate.message)
        for outcome in (step, rate):
            for value in right.values():
                assert page.on_page(float(value), learner_view(outcome.message)) == [], (params, outcome.message)


def test_a_part1_handed_in_from_another_set_is_never_credited_carried_forward(batching_suites: SuiteSession) -> None:
    """A classmate's Part 1 (or a swapped notebook's) earns no point carried forward from its copied answers."""
    assert page.copies_credited(batching_suites, LESSON, _answers, PART1) == []
