"""The Prefill lesson (lesson 2 of the chapter) held to its own checks (tests/test_lesson_gates.py runs the gates
every lesson passes: fresh build, full marks and zero, corpus, audit, nbgrader, Gradescope): every number its
text shows is what its functions compute, no by-hand answer is on the learner's page, its choices do not give
themselves away, and the suites' diagnosis can tell its slips apart (a probe per function, a panel for the
comparison)."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.lessons import load_lesson
from grader.model import Lesson
from grader.params import as_dict, default_params, every_params
from grader.suites.session import SuiteSession
from tests.lesson_support import (
    Claim,
    choice_options,
    learner_page,
    notebook,
    on_page,
    reference,
    released_part1,
    suite_module,
    unclaimed_bold_numbers,
    wrong_claims,
)

LESSON = load_lesson("prefill")


def _reference() -> Any:
    return reference(LESSON)


def _module(name: str) -> Any:
    return suite_module(LESSON, name)


# -- every number in the text is the lesson's own -----------------------------------------------------------------


def _claims(r: Any) -> list[Claim]:
    """(a passage of the text, the number it shows, that number computed, relative tolerance or 0 for half a unit
    of the last digit shown)."""
    flops = r.prefill_flops(70e9, 4000)
    ridge = r.ridge_point(1.979e15, 4.8e12)
    attention = 2 * 80 * 4000**2 * 8192  # 2 x layers x L^2 x attention width (Llama-3-70B: 64 heads x 128)
    kv = r.kv_bytes_written(4000, 80, 8, 128, 2)
    return [
        ("2 x 70e9 x 4,000 = **5.6e14 FLOPs**", "5.6e14", flops, 1e-9),
        ("2 x 4,000 / 1 = **8,000 FLOPs per byte**", "8000", r.prefill_intensity(4000, 1), 0),
        ("1.979e15 / 4.8e12 ≈ **412 FLOPs per byte**", "412", ridge, 0),
        ("(the same for the pair, 3.958e15 / 9.6e12)", "412", r.ridge_point(3.958e15, 9.6e12), 0),
        ("the prompt sits about 19 times above it", "19", r.prefill_intensity(4000, 1) / ridge, 0),
        ("412 x 1 / 2 ≈ 206 tokens", "206", ridge * 1 / 2, 0),
        ("5.6e14 / 3.958e15 ≈ **0.141 s**", "0.141", r.ttft_seconds(70e9, 4000, 3.958e15, 1.0), 0),
        ("5.6e14 / (3.958e15 x 0.28) ≈ **0.51 s**", "0.51", r.ttft_seconds(70e9, 4000, 3.958e15, 0.28), 0),
        ("70e9 / 9.6e12 ≈ 7.3 ms", "7.3", 70e9 / 9.6e12 * 1e3, 0),
        ("about 10 ms at the 73% of that bandwidth", "10", 70e9 / (0.73 * 9.6e12) * 1e3, 0),
        ("2 x 80 layers x 4,000^2 x 8,192 ≈ 2.1e13 FLOPs", "2.1e13", attention, 0.01),
        ("about **3.7%** of 5.6e14", "3.7", attention / flops * 100, 0),
        (
            "At 32,000 tokens it would be about 30%",
            "30",
            2 * 80 * 32000**2 * 8192 / r.prefill_flops(70e9, 32000) * 100,
            0.01,
        ),
        ("2 x 80 x 8 x 128 x 2 = 327,680 bytes per token", "327680", r.kv_bytes_written(1, 80, 8, 128, 2), 0),
        ("x 4,000 tokens = **1.31 GB** written", "1.31", kv / 1e9, 0),
        ("written (1.22 GiB)", "1.22", kv / 2**30, 0),
        ("1.31e9 bytes is 1.31 GB but 1.22 GiB", "1.22", 1.31e9 / 2**30, 0),
        ("2 x 4.8 = 9.6 TB/s and 2 x 1,979 = 3,958 TFLOP/s", "3958", 2 * 1979, 0),
        (
            "the intensity is 2 x 4,000 = 8,000 FLOPs per byte, nearly twenty times",
            "8000",
            r.prefill_intensity(4000, 1),
            0,
        ),
        ("nearly twenty times the H200's ridge point of 412", "412", ridge, 0),
        ("far below the ridge point of 412", "412", ridge, 0),
        ("(about 206 tokens here)", "206", ridge / 2, 0),
        (
            "At 32,000 tokens attention's term is about 30%",
            "30",
            2 * 80 * 32000**2 * 8192 / r.prefill_flops(70e9, 32000) * 100,
            0.01,
        ),
        ("a KV cache eight times the size", "8", r.kv_bytes_written(32000, 80, 8, 128, 2) / kv, 0),
    ]


def test_every_number_the_text_claims_is_what_the_lessons_functions_compute() -> None:
    assert wrong_claims(LESSON, _claims(_reference())) == []


#: Bold text that starts with a digit but states a formula or a given, not a computed number.
FORMULAS = (
    "**2·N FLOPs per token**",
    "**2·N·L FLOPs**",
    "**2L / b FLOPs per byte**",
    "**70B-parameter model in FP8**",
    "**28% utilisation**",
)


def test_every_bold_number_in_the_text_has_a_claim() -> None:
    assert unclaimed_bold_numbers(LESSON, _claims(_reference()), FORMULAS) == []


def test_the_chapter_replica_agrees_with_decodes_check_yourself_question() -> None:
    """About 0.5 s for the 4,000-token prefill and about 10 ms a decoded token, on two H200s (CHAPTER.md)."""
    r = _reference()
    assert 0.45 <= r.ttft_seconds(70e9, 4000, 2 * 1.979e15, 0.28) <= 0.55
    assert 0.009 <= 70e9 / (0.73 * 2 * 4.8e12) <= 0.011
    assert r.is_compute_bound(4000, 1, 1.979e15, 4.8e12) and not r.is_compute_bound(1, 1, 1.979e15, 4.8e12)


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    r = _reference()
    names = []
    for cell in notebook(LESSON.solution).cells:
        for name, args, shown in re.findall(r"Example: (\w+)\((.*)\) -> (.+)", cell.source):
            names.append(name)
            value = eval(f"r.{name}({args})", {"r": r})  # the docstring's own call, on the reference
            if shown.endswith("..."):
                digits = shown.rstrip(".")
                assert str(value).startswith(digits), (name, value, shown)
            else:
                assert value == eval(shown), (name, value, shown)
    assert sorted(names) == sorted(q.id for q in LESSON.questions if q.kind == "function")


# -- no by-hand answer on the learner's page -------------------------------------------------------------------------


def _renderings(value: float) -> set[str]:
    """How a number may be written: 3 to 5 significant figures, plain or with an exponent, whole digits."""
    out = set()
    for digits in (3, 4, 5):
        short = f"{value:.{digits}g}"
        out.add(short.replace("e+", "e").replace("e0", "e"))
        mantissa, _, exponent = f"{value:.{digits - 1}e}".partition("e")
        out.add(f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}")
    if value >= 1:
        out.add(f"{value:.0f}")
    return {s for s in out if sum(ch.isdigit() for ch in s) >= 2}


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    r = _reference()
    seen = learner_page(LESSON)
    by_hand = [q.id for q in LESSON.questions if q.kind == "value"]
    assert by_hand
    for name in by_hand:
        for shown in _renderings(float(getattr(r, name))):
            assert not re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", seen), f"{name}: {shown} is on the page"


def test_the_check_catches_an_answer_left_on_the_page() -> None:
    """The search above can fail: 54.6 ms written into the text would be found."""
    seen = learner_page(LESSON) + "\nthat takes 54.6 ms"
    assert any(re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", seen) for s in _renderings(float(_reference().ttft_ms)))


# -- choices -----------------------------------------------------------------------------------------------------------


def test_no_right_option_is_the_longest_and_the_right_letters_vary() -> None:
    r = _reference()
    letters = []
    for question, options in choice_options(LESSON).items():
        right = getattr(r, question).strip().upper()
        letters.append(right)
        others = [len(text) for letter, text in options.items() if letter != right]
        assert len(options) >= 3 and len(options[right]) < max(others), (question, options[right])
    assert len(set(letters)) == len(letters)


# -- the suites can tell the slips apart ----------------------------------------------------------------------------


def test_each_probe_separates_every_slip_of_its_function() -> None:
    suite = _module("conftest")
    for name, slips in suite.SLIPS.items():
        probe = suite.PROBES[name]
        values = [suite.SPEC[name](**probe)] + [rule(**probe) for _, rule in slips]
        for (i, a), (j, b) in itertools.combinations(enumerate(values), 2):
            assert not math.isclose(a, b, rel_tol=1e-4), (name, slips[i - 1][0] if i else "right", slips[j - 1][0])


def test_the_panel_tells_every_wrong_comparison_from_the_others_and_from_the_right_one() -> None:
    suite = _module("conftest")
    verdicts = [tuple(2 * L / b > 400 for L, b in suite.PANEL)]
    verdicts += [tuple(rule(L, b, 400.0) for L, b in suite.PANEL) for _, rule in suite.WRONG_RULES]
    assert len(set(verdicts)) == len(verdicts)


def test_the_by_hand_slips_are_far_apart_and_the_expected_values_are_the_solutions() -> None:
    """On the page's numbers, the suites' expected values are the solution notebook's own answers."""
    values = _module("test_values")
    r = _reference()
    part1 = values.Part1.of(as_dict(default_params(LESSON)))
    for name, (expected, _, _, _) in part1.values().items():
        assert math.isclose(float(getattr(r, name)), expected, rel_tol=1e-9), name


# -- Part 1 on each learner's own numbers (lesson.toml's [params]) ---------------------------------------------------

PART1 = ("prompt_flops", "prompt_intensity", "ttft_ms", "kv_gb")


def _sig(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


def test_on_every_set_of_numbers_the_answers_stay_apart_from_every_known_mistake() -> None:
    """A known slip is named within 0.2%: on each of the 36 sets of numbers a learner can get, every right answer
    differs from each slip of its question (the worked example's numbers among them) by more than twice its
    tolerance, and the slips from one another by more than 0.4%; an answer rounded to 3 significant figures
    (allowed) is right and one rounded to 2, where that is another number, is wrong; and every prefill is
    compute-bound, as the text assumes."""
    values = _module("test_values")
    sets = every_params(LESSON)
    assert len(sets) == 36
    for params in sets:
        part1 = values.Part1.of(as_dict(params))
        known = part1.known()
        for name, (expected, rel, _, _) in part1.values().items():
            slips = [v for _, v in known[name]]
            assert all(abs(v / expected - 1) > max(rel, 2e-3) * 2 for v in slips), (params, name)
            for a, b in itertools.combinations(slips, 2):
                assert abs(a / b - 1) > 4e-3, (params, name, a, b)
            if rel > 1e-6:  # "you may round to 3 significant figures"
                assert abs(_sig(expected, 3) / expected - 1) < rel, (params, name)
                if _sig(expected, 2) != _sig(expected, 3):
                    assert abs(_sig(expected, 2) / expected - 1) > rel, (params, name)
        assert part1.intensity > part1.dense / part1.bandwidth, params


@pytest.mark.slow
def test_every_learners_notebook_states_their_numbers_and_none_of_their_answers() -> None:
    """Released on each set of numbers: the text states that learner's model, prompt and accelerator, the solution
    built on them gives the suites' expected answers, and none of those answers is on the learner's page."""
    values = _module("test_values")
    for numbers, built, r in released_part1(LESSON, PART1):
        params = tuple(numbers.items())
        for name, (expected, _, _, _) in values.Part1.of(numbers).values().items():
            assert math.isclose(getattr(r, name), expected, rel_tol=1e-9), (params, name)
        text = " ".join(" ".join(c.source.split()) for c in built.learner.cells if c.cell_type == "markdown")
        assert f"N = {numbers['params_b']}e9 parameters (about the size of {numbers['model']})" in text, params
        assert f"runs on **one** {numbers['gpu']}." in text and f"L = {numbers['prompt_text']} tokens" in text
        assert f"for {numbers['model']}'s shape: {numbers['layers']} layers" in text, params
        page = re.sub(r"(?<=\d),(?=\d{3})", "", "\n".join(c.source for c in built.learner.cells))
        assert {name: on_page(float(getattr(r, name)), page) for name in PART1} == {name: [] for name in PART1}
        assert built.learner.metadata["grader"]["params"] == numbers


def _answers(numbers: dict[str, Any], slip: float = 1.0) -> dict[str, object]:
    part1 = _module("test_values").Part1.of(numbers)
    right = {name: value for name, (value, _, _, _) in part1.values().items()}
    return {**right, "ttft_ms": right["ttft_ms"] * slip}


def test_two_learners_each_get_full_marks_only_for_their_own_numbers(
    suite_session: Callable[[Lesson], SuiteSession],
) -> None:
    from grader.params import draw
    from grader.suites.namespace import NamespaceTarget

    secret = b"a-course-secret-for-this-test-only"
    ada, bob = draw(LESSON, "ada", secret), draw(LESSON, "bob", secret)
    assert as_dict(ada)["model"] != as_dict(bob)["model"] and as_dict(ada)["prompt_len"] != as_dict(bob)["prompt_len"]
    suites = suite_session(LESSON)
    for mine, theirs in ((ada, bob), (bob, ada)):
        own = suites.run(NamespaceTarget(_answers(as_dict(mine))), frozenset(PART1), mine)
        assert {o.status for o in own} == {"passed"}, own
        copied = suites.run(NamespaceTarget(_answers(as_dict(theirs))), frozenset(PART1), mine)
        assert {o.status for o in copied} == {"failed"}, copied


def test_a_part1_copied_from_any_other_set_of_numbers_earns_nothing_not_even_carried_forward(
    suite_session: Callable[[Lesson], SuiteSession],
) -> None:
    """A TTFT that follows from FLOPs handed in from another set of numbers (a classmate's on the same
    accelerator, say) is a copy, not a slip carried forward: it earns nothing, on every other set."""
    from grader.params import every_params
    from grader.suites.namespace import NamespaceTarget

    mine, *others = every_params(LESSON)
    own = _answers(as_dict(mine))
    tried = 0
    suites = suite_session(LESSON)
    for theirs in others:
        handed_in = _answers(as_dict(theirs))
        if abs(handed_in["prompt_flops"] - own["prompt_flops"]) <= 1e-3 * own["prompt_flops"]:
            continue  # the same model and prompt: the same FLOPs are right, not copied
        tried += 1
        (ttft,) = suites.run(NamespaceTarget(handed_in), frozenset({"ttft_ms"}), mine)
        assert ttft.status == "failed" and not ttft.carried, (theirs, ttft)
    assert tried >= 10


def test_a_1000x_slip_and_the_sparse_headline_are_named_on_every_learners_numbers(
    suite_session: Callable[[Lesson], SuiteSession],
) -> None:
    """ttft_ms in seconds is told so, and the sparse headline used as is names the learner's own datasheet figure,
    whatever the model, prompt and accelerator."""
    from grader.params import spread
    from grader.suites.namespace import NamespaceTarget

    suites = suite_session(LESSON)
    for params in spread(LESSON):
        numbers = as_dict(params)
        (seconds,) = suites.run(NamespaceTarget(_answers(numbers, 1e-3)), frozenset({"ttft_ms"}), params)
        assert seconds.status == "failed" and "time in seconds" in seconds.message, (params, seconds.message)
        (sparse,) = suites.run(NamespaceTarget(_answers(numbers, 0.5)), frozenset({"ttft_ms"}), params)
        assert sparse.status == "failed" and "used as is" in sparse.message, (params, sparse.message)
        assert f"{numbers['sparse_tflops']:,} teraFLOPS" in sparse.message, sparse.message


@pytest.mark.slow
def test_a_roster_release_gives_each_learner_their_own_numbers_and_marks_only_their_own_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`grade build exercises/prefill --roster`: two learners get different numbers in their text; graded in a
    batch, the Part 1 answers worked on their own numbers get full marks, and the same answers handed in by the
    other learner lose every point (a TTFT that follows from the FLOPs handed in is a copy, not carried forward)."""
    import json

    from grader.authoring.build import Owner, build_notebooks, read_source
    from grader.authoring.release import release
    from grader.batch import BatchOptions, run_batch
    from grader.params import SECRET_ENV, draw
    from grader.pipeline import GradeOptions

    secret = "a-course-secret-for-this-test-only"
    monkeypatch.setenv(SECRET_ENV, secret)
    (tmp_path / "roster.csv").write_text("learner\nada\nbob\n", encoding="utf-8")
    ada, bob = (tmp_path / "released" / who / "prefill.ipynb" for who in ("ada", "bob"))
    assert release(LESSON, tmp_path / "roster.csv", tmp_path / "released", LESSON.root.parent) == [ada, bob]
    numbers = {who: draw(LESSON, who, secret.encode()) for who in ("ada", "bob")}
    assert as_dict(numbers["ada"])["prompt_len"] != as_dict(numbers["bob"])["prompt_len"]
    src = read_source(LESSON)
    work = {}
    for who, path in (("ada", ada), ("bob", bob)):
        text = path.read_text(encoding="utf-8")
        assert f"L = {as_dict(numbers[who])['prompt_text']} tokens" in text
        solved = build_notebooks(src, Owner(who, numbers[who])).solution
        work[who] = {c.get("id"): c.source for c in solved.cells if c.get("id") in PART1}
    submitted = tmp_path / "class"
    submitted.mkdir()
    for who, path, answers in (("ada", ada, work["ada"]), ("bob", bob, work["ada"])):  # bob hands in ada's Part 1
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell.get("id") in answers:
                cell["source"] = answers[cell["id"]]
        (submitted / f"{who}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    options = BatchOptions(grading=GradeOptions(lesson="prefill", lessons_root=LESSON.root.parent), jobs=1)
    run_batch(submitted, tmp_path / "results", options)
    rows = [json.loads(line) for line in (tmp_path / "results" / "results.jsonl").read_text().splitlines()]
    part1 = {
        r["learner"]: {q["id"]: q["score"] == q["max_score"] for q in r["questions"] if q["id"] in PART1} for r in rows
    }
    assert part1 == {"ada": dict.fromkeys(PART1, True), "bob": dict.fromkeys(PART1, False)}, part1


def test_a_flops_slip_carried_into_the_ttft_costs_the_flops_point_only(
    suite_session: Callable[[Lesson], SuiteSession],
) -> None:
    """One bug costs once: on every learner's numbers, a TTFT worked right from the learner's own wrong FLOPs
    passes (the FLOPs fail with their slip named); a TTFT wrong on the learner's own FLOPs too still fails, its
    slip named from the right inputs; and right FLOPs carry nothing (a TTFT off by the slip's factor fails)."""
    from grader.params import spread
    from grader.suites.namespace import NamespaceTarget

    both = frozenset({"prompt_flops", "ttft_ms"})
    suites = suite_session(LESSON)
    for params in spread(LESSON):
        right = _answers(as_dict(params))
        slipped = right["prompt_flops"] / 2  # 1 FLOP per parameter per token
        carried = {"prompt_flops": slipped, "ttft_ms": right["ttft_ms"] / 2}
        flops, ttft = suites.run(NamespaceTarget(carried), both, params)
        assert flops.status == "failed" and "1 FLOP per parameter" in flops.message, (params, flops.message)
        assert ttft.status == "passed", (params, ttft.message)
        seconds = {"prompt_flops": slipped, "ttft_ms": right["ttft_ms"] / 1e3}
        _, ttft = suites.run(NamespaceTarget(seconds), both, params)
        assert ttft.status == "failed" and "time in seconds" in ttft.message, (params, ttft.message)
        alone = {"prompt_flops": right["prompt_flops"], "ttft_ms": right["ttft_ms"] / 2}
        flops, ttft = suites.run(NamespaceTarget(alone), both, params)
        assert flops.status == "passed" and ttft.status == "failed", (params, ttft.message)


def test_a_half_ttft_names_both_readings_whatever_the_learners_own_flops(
    suite_session: Callable[[Lesson], SuiteSession],
) -> None:
    """A TTFT of exactly half is the sparse headline used as is or the 2 FLOPs per parameter left out, and both are
    said whatever the learner's own prompt_flops: a TTFT written out directly, not from that answer, can leave the 2
    out with prompt_flops right (issue 33, the blind TA's ttft_no_2 was told the headline alone)."""
    from grader.params import spread
    from grader.suites.namespace import NamespaceTarget

    suites = suite_session(LESSON)
    for params in spread(LESSON):
        right = _answers(as_dict(params))
        half = right["ttft_ms"] / 2
        for flops in (right["prompt_flops"], None, right["prompt_flops"] * 3):
            answers = {"ttft_ms": half} if flops is None else {"prompt_flops": flops, "ttft_ms": half}
            (ttft,) = suites.run(NamespaceTarget(answers), frozenset({"ttft_ms"}), params)
            assert ttft.status == "failed" and "used as is" in ttft.message, (params, ttft.message)
            assert "2 FLOPs per parameter left out" in ttft.message, (params, flops, ttft.message)
