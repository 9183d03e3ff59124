"""The Request lesson ("A request, end to end"), its own checks only (tests/test_lesson_gates.py runs the gates every
lesson passes: fresh build, full marks and zero, corpus, audit, nbgrader, Gradescope): every number its text
states is what the lesson's own functions compute, Part 1's answers are nowhere on the learner's page, its
percentile is the method the text names, and its choices do not give the answer away by their length."""

from __future__ import annotations

import ast
import json
import math
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.lessons import load_lesson
from grader.model import Lesson
from grader.suites.session import SuiteSession
from tests.lesson_support import suite_module

LESSON = load_lesson("request")
VALUE_QUESTIONS = [q.id for q in LESSON.questions if q.kind == "value"]
CHOICE_QUESTIONS = [q.id for q in LESSON.questions if q.kind == "choice"]
#: The by-hand answers' tolerance as the suites grade them: 1e-6 relative, except the one graded to 1 decimal.
ABS_TOL = {"request_tokens_per_s": 0.05}


def _read(path: Any) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _reference() -> Any:
    from grader.suites.reference import load_reference

    return load_reference(LESSON.solution)


def _markdown(nb: nbformat.NotebookNode) -> str:
    """The text cells, with line breaks as spaces (a claim may wrap)."""
    return " ".join(" ".join(c.source.split()) for c in nb.cells if c.cell_type == "markdown")


def _everything(nb: nbformat.NotebookNode) -> str:
    """Every cell's source and every output's text: what a learner can read on the page."""
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(str(output.get("text", "")))
            parts.extend(str(v) for v in output.get("data", {}).values())
    return "\n".join(parts)


def _numbers(text: str) -> list[float]:
    """Every number written on a page: 4,000 and 1,979 with their thousands commas, 0.512, 5.6e14, 2 x 4.8."""
    found = re.findall(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w])\d*\.?\d+(?:e-?\d+)?", text)
    return [float(n.replace(",", "")) for n in found]


# -- every number in the text is the lesson's own ---------------------------------------------------------------------


def _claims(r: Any) -> list[tuple[str, str, float, float]]:
    """(a passage of the text, the number it shows, that number computed by the reference, relative tolerance).

    A tolerance of 0 means half a unit of the last digit shown: "≈ 91.1" must be 91.07 rounded.
    """
    replica_peak_flops = 2 * 1.979e15  # two H200 SXM, dense FP8 (half the datasheet's 3,958 "with sparsity")
    replica_bandwidth = 2 * 4.8e12  # two H200 SXM, HBM3e
    prefill_flops = 2 * 70e9 * 4000
    arrivals = [0.50, 0.51, 0.52, 0.55, 0.56]
    gaps_ms = [g * 1e3 for g in r.itl_from_timestamps(arrivals)]
    tail = [0.40] * 98 + [6.0] * 2
    five = [300, 100, 200, 400, 1000]
    return [
        ("half of that, 1,979 TFLOP/s, for dense math", "1979", 3958 / 2, 0),
        ("2 x 70e9 x 4,000 = 5.6e14 FLOPs", "5.6e14", prefill_flops, 0.01),
        ("0.141 s at the pair's dense peak of 3.958e15 FLOP/s", "0.141", prefill_flops / replica_peak_flops, 0),
        ("3.958e15 FLOP/s", "3.958e15", replica_peak_flops, 1e-9),
        (
            "*the chapter assumes* 28% of it, so about **0.5 s**",
            "28",
            100 * prefill_flops / replica_peak_flops / 0.5,
            0,
        ),
        ("at the pair's 9.6 TB/s that takes at least 70e9 / 9.6e12 = 7.3 ms", "7.3", 70e9 / replica_bandwidth * 1e3, 0),
        ("about 7 TB/s achieved (73% of peak), so about **10 ms**", "10", 70e9 / 7e12 * 1e3, 0),
        ("(73% of peak)", "73", 100 * 7e12 / replica_bandwidth, 0),
        ("T ≈ 0.5 + (500 - 1) x 0.010 = **5.49 s**", "5.49", r.request_latency(0.5, 0.010, 500), 0),
        ("the gaps are 10, 10, 30 and 10 ms", "30", gaps_ms[2], 0),
        ("the gaps are 10, 10, 30 and 10 ms", "10", gaps_ms[3], 0),
        ("the TPOT is (0.56 - 0.50) / 4 = **15 ms**", "15", sum(gaps_ms) / len(gaps_ms), 0),
        ("1 / 0.010 s = **100 tokens/s**", "100", r.fleet_tokens_per_second([0.010]), 0),
        ("500 / 5.49 ≈ **91.1 tokens/s**", "91.1", r.output_rate(500, 0.5, 0.010), 0),
        ("100 + 80 + 50 = **230 tokens/s** in all", "230", r.fleet_tokens_per_second([0.010, 0.0125, 0.020]), 0),
        ("100 + 80 + 50", "80", r.fleet_tokens_per_second([0.0125]), 0),
        ("100 + 80 + 50", "50", r.fleet_tokens_per_second([0.020]), 0),
        ("(Not 3 / (mean gap) ≈ 212", "212", 3 / (sum([0.010, 0.0125, 0.020]) / 3), 0),
        ("p50: h = 4 x 0.5 = 2, so **300 ms**", "300", r.percentile(five, 50), 0),
        ("400 + 0.6 x 600 = **760 ms**", "760", r.percentile(five, 90), 0),
        ("The mean is **400 ms**", "400", r.latency_summary(five)[0], 0),
        ("ceil(0.9 x 5) = 5 and gives 1,000 ms", "5", math.ceil(0.9 * 5), 0),
        ("(98 x 0.40 + 2 x 6.0) / 100 = **0.512 s**", "0.512", r.latency_summary(tail)[0], 0),
        ("The p50 is **0.40 s**", "0.40", r.latency_summary(tail)[1], 0),
        ("But the p99 is **6.0 s**", "6.0", r.latency_summary(tail)[2], 0),
        ("one user in fifty waits 15 times longer", "15", r.percentile(tail, 99) / r.percentile(tail, 50), 0),
        ("P is about 24 times faster", "24", 2300 / 95, 0),
    ]


def _half_unit(shown: str) -> float:
    mantissa = shown.split("e")[0]
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0**-digits


def test_every_number_the_text_claims_is_what_the_lessons_functions_compute() -> None:
    text = _markdown(_read(LESSON.notebook))
    for passage, shown, computed, rel in _claims(_reference()):
        assert passage in text, f"the text no longer says {passage!r}: update the claim with the text"
        assert shown in passage.replace(",", "")
        tolerance = rel * abs(computed) if rel else _half_unit(shown)
        assert abs(float(shown) - computed) <= tolerance, f"{passage!r}: the lesson's functions give {computed!r}"


def test_every_bold_number_in_the_text_has_a_claim_or_is_a_part_1_given() -> None:
    claimed = " ".join(passage for passage, *_ in _claims(_reference()))
    text = _markdown(_read(LESSON.notebook))
    part1 = text[text.index("## Part 1: by hand") : text.index("## Part 2: in code")]
    bold = re.findall(r"\*\*(?!\d+\.\*\*)[0-9][^*]*\*\*", text)
    assert bold and [b for b in bold if b not in claimed and b not in part1] == []


def test_the_texts_hardware_figures_cite_their_sources() -> None:
    text = _markdown(_read(LESSON.notebook))
    for source in (
        "NVIDIA H200 Tensor Core GPU datasheet",
        "NIM LLM Benchmarking",
        "loadgen/mlperf.conf",
        "numpy.percentile",
    ):
        assert source in text, source


def _matches(shown: str, value: Any) -> bool:
    """Whether a docstring's result (``5.49``, ``91.07...``, ``[0.25, 0.25, 0.5]``, ``(400.0, 300.0, 976.0)``) is
    ``value``."""
    if shown.endswith("..."):
        digits = len(shown[:-3].split(".")[1])
        return float(shown[:-3]) <= value < float(shown[:-3]) + 10.0**-digits
    literal = ast.literal_eval(shown)
    if isinstance(literal, (list, tuple)):
        return (
            type(literal) is type(value)
            and len(literal) == len(value)
            and all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(literal, value, strict=True))
        )
    return bool(math.isclose(value, literal, rel_tol=1e-9))


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    """Each function's ``Example: f(...) -> result`` line, called on the reference; one example per function."""
    r = _reference()
    source = "\n".join(c.source for c in _read(LESSON.solution).cells)
    examples = re.findall(r"Example: (\w+)\((.*)\) -> (.+)", source)
    wrong = [
        f"{name}({args}) -> {shown}"
        for name, args, shown in examples
        if not _matches(shown.strip(), eval(f"r.{name}({args})", {"r": r}))  # the docstring's own call
    ]
    assert wrong == []
    assert sorted(name for name, _, _ in examples) == sorted(q.id for q in LESSON.questions if q.kind == "function")


# -- Part 1 cannot be copied from the page ----------------------------------------------------------------------------


def _given_away(answer: float, numbers: list[float], abs_tol: float) -> list[float]:
    """The numbers on a page that the grader would accept for ``answer`` (or nearly: within 0.1%)."""
    return [n for n in numbers if abs(n - answer) <= max(abs_tol, 1e-3 * abs(answer))]


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    r = _reference()
    numbers = _numbers(_everything(_read(LESSON.notebook)))
    assert len(numbers) > 100  # the whole page was read
    for name in VALUE_QUESTIONS:
        answer = float(getattr(r, name))
        assert _given_away(answer, numbers, ABS_TOL.get(name, 0.0)) == [], f"{name}'s answer is on the page"


def _part1_answers(solution: nbformat.NotebookNode) -> dict[str, float]:
    """Part 1's answers as a solution notebook's answer cells compute them (a cell may take two lines)."""
    namespace: dict[str, Any] = {}
    for cell in solution.cells:
        if cell.get("id") in VALUE_QUESTIONS:
            exec(cell.source, namespace)  # the lesson's own solution cell
    return {name: float(namespace[name]) for name in VALUE_QUESTIONS}


def test_the_answer_search_finds_answers_where_they_are_written() -> None:
    """The check above can fail: on the solution notebook, whose answer cells hold them, it finds every one
    (written as a number, or as the arithmetic that gives it, whose terms are on the page anyway)."""
    r = _reference()
    answers = _part1_answers(_read(LESSON.solution))
    for name in VALUE_QUESTIONS:
        assert math.isclose(answers[name], float(getattr(r, name)))
    assert _given_away(31.25, _numbers("the rate is 31.25 tokens/s"), 0.0) == [31.25]
    assert _given_away(24.1158, _numbers("about 24.1 tokens/s"), 0.05) == [24.1]


def test_part_1_states_its_own_numbers_and_the_answers_follow_from_the_lessons_functions() -> None:
    """Part 1's givens (the page's own numbers) differ from the worked example's, and each answer is what Part 2's
    functions give."""
    r = _reference()
    text = _markdown(_read(LESSON.notebook))
    part1 = text[text.index("## Part 1: by hand") : text.index("## Part 2: in code")]
    assert "TTFT is **0.6 s**" in part1 and "ITL is **32 ms**" in part1 and "**60** output tokens" in part1
    samples = [230, 210, 250, 1900, 240, 220, 260, 215, 245, 235]
    assert "> " + ", ".join(map(str, samples)) in " ".join(c.source for c in _read(LESSON.notebook).cells)
    assert r.latency_s == pytest.approx(r.request_latency(0.6, 0.032, 60), rel=1e-12)
    assert r.steady_tokens_per_s == pytest.approx(r.fleet_tokens_per_second([0.032]), rel=1e-12)
    assert r.request_tokens_per_s == pytest.approx(r.output_rate(60, 0.6, 0.032), rel=1e-12)
    mean, p50, p99 = r.latency_summary(samples)
    assert (r.mean_ms, r.p50_ms, r.p99_ms) == pytest.approx((mean, p50, p99), rel=1e-12)


# -- Part 1 on each learner's own numbers (lesson.toml's [params]) -----------------------------------------------


def _expected(numbers: dict[str, Any]) -> dict[str, float]:
    """Part 1's right answers on one set of numbers, from Part 2's functions (not the suites' own arithmetic)."""
    r = _reference()
    samples = [float(x) for x in str(numbers["latencies"]).split(",")]
    ttft, itl, n_out = float(numbers["ttft_s"]), float(numbers["itl_ms"]) / 1000, int(numbers["n_out"])
    mean, p50, p99 = r.latency_summary(samples)
    return {
        "latency_s": r.request_latency(ttft, itl, n_out),
        "steady_tokens_per_s": r.fleet_tokens_per_second([itl]),
        "request_tokens_per_s": r.output_rate(n_out, ttft, itl),
        "mean_ms": mean,
        "p50_ms": p50,
        "p99_ms": p99,
    }


#: Known mistakes are named within 0.2% (the suites' conftest); two numbers more than twice that apart are never
#: both in one window, so a right answer is never told a slip and no slip is told another's name.
APART = 4e-3


def test_on_every_set_of_numbers_the_answers_stay_apart_from_every_known_mistake() -> None:
    """On each of the 48 combinations: the suites' expected value is what Part 2's functions give; it and every
    known mistake of its question are more than 0.4% apart, and more than twice the tolerance apart where the
    answer may be rounded; and no request_tokens_per_s is within 0.1 of a whole number (rounding to one is always
    wrong)."""
    from grader.params import every_params

    values = suite_module(LESSON, "test_values")
    sets = every_params(LESSON)
    assert len(sets) == 48
    for params in sets:
        numbers = dict(params)
        part1 = values.Part1.of(numbers)
        expected = _expected(numbers)
        for name, right, mistakes in (
            ("latency_s", part1.latency, part1.latency_mistakes()),
            ("steady_tokens_per_s", part1.steady, part1.steady_mistakes()),
            ("request_tokens_per_s", part1.rate, part1.rate_mistakes()),
            ("mean_ms", part1.mean, part1.mean_mistakes()),
            ("p50_ms", part1.percentile(50), part1.p50_mistakes()),
            ("p99_ms", part1.percentile(99), part1.p99_mistakes()),
        ):
            assert math.isclose(right, expected[name], rel_tol=1e-12), (params, name)
            numbers_of = [right, *mistakes.values()]
            closest = min(
                abs(a - b) / max(abs(a), abs(b)) for i, a in enumerate(numbers_of) for b in numbers_of[i + 1 :]
            )
            assert closest > APART, (params, name, numbers_of)
            tol = ABS_TOL.get(name, 0.0)
            assert all(abs(right - wrong) > 2 * tol for wrong in mistakes.values()), (params, name)
        assert abs(part1.rate - round(part1.rate)) > 0.1, params


@pytest.mark.slow  # builds 48 notebooks
def test_every_learners_notebook_states_their_numbers_and_none_of_their_answers() -> None:
    """Released on each set of numbers the lesson can give: the text states that learner's deployment, reply
    length and latencies, the solution built on them answers for them, and none of those answers (nor one the
    grader would accept for it) is a number on the learner's page."""
    from grader.authoring.build import Owner, build_notebooks, read_source
    from grader.params import every_params

    src = read_source(LESSON)
    for params in every_params(LESSON):
        numbers = dict(params)
        built = build_notebooks(src, Owner("ada", params))
        answers = _part1_answers(built.solution)
        expected = _expected(numbers)
        assert all(math.isclose(answers[q], expected[q], rel_tol=1e-12) for q in VALUE_QUESTIONS), params
        text = _markdown(built.learner)
        part1 = text[text.index("## Part 1: by hand") : text.index("## Part 2: in code")]
        assert f"TTFT is **{numbers['ttft_s']:g} s**" in part1, params
        assert f"ITL is **{numbers['itl_ms']:g} ms**" in part1 and f"**{numbers['n_out']}** output tokens" in part1
        assert f"> {numbers['latencies']}" in part1, params
        page = _numbers(_everything(built.learner))
        for name in VALUE_QUESTIONS:
            assert _given_away(answers[name], page, ABS_TOL.get(name, 0.0)) == [], (params, name)
        assert built.learner.metadata["grader"]["params"] == numbers


@pytest.fixture(scope="module")
def request_suites(suite_session: Callable[[Lesson], SuiteSession]) -> SuiteSession:
    return suite_session(LESSON)


def test_two_learners_each_get_full_marks_only_for_their_own_numbers(request_suites: Any) -> None:
    """Each learner's right answers pass on their own numbers; a classmate's (who drew other numbers for every
    parameter) fail on every question."""
    from grader.params import draw
    from grader.suites.namespace import NamespaceTarget

    secret = b"a-course-secret-for-this-test-only"
    ada = draw(LESSON, "ada", secret)
    others = (draw(LESSON, f"learner{k}", secret) for k in range(200))
    bob = next(p for p in others if all(dict(p)[f] != v for f, v in ada))
    questions = frozenset(VALUE_QUESTIONS)
    for mine, theirs in ((ada, bob), (bob, ada)):
        own = request_suites.run(NamespaceTarget(_expected(dict(mine))), questions, mine)
        assert {o.status for o in own} == {"passed"}, own
        copied = request_suites.run(NamespaceTarget(_expected(dict(theirs))), questions, mine)
        assert {o.status for o in copied} == {"failed"}, copied


def test_a_rate_that_follows_from_a_copied_latency_earns_nothing(request_suites: Any) -> None:
    """A latency handed in from another set of numbers (a classmate sharing n_out, say) is a copy, not a slip:
    the output rate worked from it is not carried forward, on every other set whose latency differs."""
    from grader.params import every_params
    from grader.suites.namespace import NamespaceTarget

    mine, *others = every_params(LESSON)
    own = _expected(dict(mine))["latency_s"]
    tried = 0
    for theirs in others:
        copied = _expected(dict(theirs))
        if abs(copied["latency_s"] - own) <= 1e-6 * own:
            continue
        tried += 1
        (rate,) = request_suites.run(NamespaceTarget(copied), frozenset({"request_tokens_per_s"}), mine)
        assert rate.status == "failed", (theirs, rate)
    assert tried >= 10


def test_a_slip_is_named_on_every_learners_numbers(request_suites: Any) -> None:
    """The ITL taken in milliseconds and the unsorted median are named whatever the learner's numbers, and the
    feedback speaks of the learner's own ITL."""
    from grader.params import spread
    from grader.suites.namespace import NamespaceTarget

    for params in spread(LESSON):
        numbers = dict(params)
        given = [float(x) for x in str(numbers["latencies"]).split(",")]
        slips = {
            "latency_s": float(numbers["ttft_s"]) + (int(numbers["n_out"]) - 1) * float(numbers["itl_ms"]),
            "p50_ms": (given[4] + given[5]) / 2,
        }
        outcomes = {o.question: o for o in request_suites.run(NamespaceTarget(slips), frozenset(slips), params)}
        latency, p50 = outcomes["latency_s"], outcomes["p50_ms"]
        assert latency.status == "failed" and "used in milliseconds" in latency.message, (params, latency.message)
        assert f"{numbers['itl_ms']:g} ms" in latency.message
        assert p50.status == "failed" and "not sorted" in p50.message, (params, p50.message)


def test_one_latency_slip_costs_only_latency_s_on_every_learners_numbers(request_suites: Any) -> None:
    """One bug costs once (error carried forward): a request_tokens_per_s worked right from the learner's own
    wrong latency_s keeps its point, and its feedback says why; one wrong on that latency_s too still fails, told
    it does not follow from it; a right rate beside a wrong latency_s passes with no note."""
    from grader.params import spread
    from grader.score import note_stand_ins, score_question
    from grader.suites.namespace import NamespaceTarget

    def graded(answers: dict[str, float], params: Any) -> dict[str, Any]:
        outcomes = request_suites.run(NamespaceTarget(answers), frozenset(answers), params)
        results = tuple(score_question(LESSON.question(q), [o for o in outcomes if o.question == q]) for q in answers)
        return {r.id: r for r in note_stand_ins(results, outcomes)}

    for params in spread(LESSON):
        numbers = dict(params)
        ttft, itl, n_out = float(numbers["ttft_s"]), float(numbers["itl_ms"]) / 1000, int(numbers["n_out"])
        slipped = ttft + n_out * itl  # n_out gaps after the first token, not n_out - 1
        carried = graded({"latency_s": slipped, "request_tokens_per_s": n_out / slipped}, params)
        assert carried["latency_s"].score == 0 and carried["request_tokens_per_s"].score == 1, (params, carried)
        assert "n_out gaps" in " ".join(carried["latency_s"].feedback)
        assert "follows from your own `latency_s`" in " ".join(carried["request_tokens_per_s"].feedback)
        twice = graded({"latency_s": slipped, "request_tokens_per_s": (n_out - 1) / slipped}, params)
        assert twice["request_tokens_per_s"].score == 0, (params, twice)
        assert "does not follow from your own `latency_s`" in " ".join(twice["request_tokens_per_s"].feedback)
        right = graded(
            {"latency_s": slipped, "request_tokens_per_s": _expected(numbers)["request_tokens_per_s"]}, params
        )
        assert right["request_tokens_per_s"].score == 1 and "follows" not in " ".join(
            right["request_tokens_per_s"].feedback
        )


def test_the_class_report_counts_one_misconception_across_everyones_numbers(request_suites: Any) -> None:
    """The ITL taken in milliseconds, made by four learners on four different sets of numbers, is one row of the
    class report with four learners: only numbers differ between their feedback (the learner's own ITL, in
    parentheses), and the report leaves numbers and parentheses out."""
    from grader.batch.model import Row
    from grader.model import Report
    from grader.params import spread
    from grader.report.class_report import misconceptions
    from grader.score import score_question
    from grader.suites.namespace import NamespaceTarget

    rows = []
    for k, params in enumerate(spread(LESSON)):
        numbers = dict(params)
        slip = {"latency_s": float(numbers["ttft_s"]) + (int(numbers["n_out"]) - 1) * float(numbers["itl_ms"])}
        outcomes = request_suites.run(NamespaceTarget(slip), frozenset(slip), params)
        result = score_question(LESSON.question("latency_s"), list(outcomes))
        rows.append(Row.of(f"learner{k}", Report("request", "x.ipynb", 0, 1, (result,))))
    assert len(rows) == 4
    found = misconceptions(rows)
    assert len(found) == 1 and len(found[0].learners) == len(rows), [m.text for m in found]


@pytest.mark.slow  # releases two notebooks and grades them in a batch
def test_released_notebooks_give_each_learner_their_numbers_and_full_marks_only_on_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``grade build --roster``'s release writes each learner their own numbers; a learner who works Part 1 on
    their notebook's numbers gets full marks for it, and the same answers handed in by a classmate (who drew
    other numbers for every parameter) get none of Part 1's points, and are flagged."""
    from grader.authoring.build import Owner, build_notebooks, read_source
    from grader.authoring.release import release
    from grader.batch import BatchOptions, run_batch
    from grader.params import SECRET_ENV, draw
    from grader.pipeline import GradeOptions

    secret = "a-course-secret-for-this-test-only"
    monkeypatch.setenv(SECRET_ENV, secret)
    drawn = {f"learner{k}": draw(LESSON, f"learner{k}", secret.encode()) for k in range(200)}
    ada = "learner0"
    bob = next(who for who, p in drawn.items() if all(dict(p)[f] != v for f, v in drawn[ada]))
    roster = tmp_path / "roster.csv"
    roster.write_text(f"learner\n{ada}\n{bob}\n", encoding="utf-8")
    released = {p.parent.name: p for p in release(LESSON, roster, tmp_path / "released", LESSON.root.parent)}
    src = read_source(LESSON)
    worked = {}
    for who in (ada, bob):
        nb = _read(released[who])
        assert nb.metadata["grader"]["params"] == dict(drawn[who])
        assert f"> {dict(drawn[who])['latencies']}" in _everything(nb)
        solution = {c.get("id"): c.source for c in build_notebooks(src, Owner(who, drawn[who])).solution.cells}
        for cell in nb.cells:
            if cell.get("id") in VALUE_QUESTIONS:
                cell.source = solution[cell.get("id")]
        worked[who] = nb
    handed_in = tmp_path / "class"
    handed_in.mkdir()
    nbformat.write(worked[ada], handed_in / f"{ada}.ipynb")
    nbformat.write(worked[ada], handed_in / f"{bob}.ipynb")  # bob hands in ada's work
    options = BatchOptions(grading=GradeOptions(lesson="request", lessons_root=LESSON.root.parent), jobs=1)
    run_batch(handed_in, tmp_path / "results", options)
    lines = (tmp_path / "results" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    rows = {row["learner"]: row for row in map(json.loads, lines)}
    part1 = {
        who: {q["id"]: q["score"] for q in row["questions"] if q["id"] in VALUE_QUESTIONS} for who, row in rows.items()
    }
    assert part1[ada] == {q: 1 for q in VALUE_QUESTIONS}, rows[ada]
    assert part1[bob] == {q: 0 for q in VALUE_QUESTIONS}, rows[bob]
    assert any(f"released to '{ada}'" in e for e in rows[bob]["errors"]), rows[bob]["errors"]


# -- the percentile method the text states is the one graded ---------------------------------------------------------


def test_the_lessons_percentile_is_numpys_default_linear_method() -> None:
    np = pytest.importorskip("numpy")
    r = _reference()
    rng = random.Random(20261201)
    for _ in range(300):
        samples = [rng.choice([rng.uniform(0.01, 9), rng.randint(1, 5000)]) for _ in range(rng.randint(1, 40))]
        p = rng.choice([0, 100, 50, 99, rng.uniform(0, 100)])
        assert r.percentile(samples, p) == pytest.approx(float(np.percentile(samples, p)), rel=1e-9, abs=1e-12)


# -- the choices ------------------------------------------------------------------------------------------------


def _options(question: str) -> dict[str, str]:
    """The options of a choice question, letter -> text, from the markdown cell that asks it."""
    for cell in _read(LESSON.notebook).cells:
        if cell.cell_type == "markdown" and f"Set `{question}`" in cell.source:
            found = re.findall(r"- \*\*([A-D])\.\*\* (.*?)(?=\n- \*\*[A-D]\.\*\*|\n\nSet )", cell.source, re.S)
            return {letter: " ".join(text.split()) for letter, text in found}
    raise AssertionError(f"no cell asks {question}")


def test_the_right_option_is_neither_always_the_longest_nor_always_the_same_letter() -> None:
    r = _reference()
    right = {q: getattr(r, q).strip().upper() for q in CHOICE_QUESTIONS}
    assert len(set(right.values())) == len(right), right
    longest = []
    for question, letter in right.items():
        options = _options(question)
        assert len(options) == 4 and letter in options, options
        answer = len(options[letter])
        for other, text in options.items():  # distractors as specific and as long as the answer
            assert len(text) >= 0.75 * answer, f"{question} {other} is much shorter than the answer"
        longest.append(answer == max(len(t) for t in options.values()))
    assert not all(longest), "the right option is the longest in every question"
