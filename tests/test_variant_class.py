"""A class of Decode notebooks released with ``grade build --roster``, each learner on their own numbers, graded
four ways: ``grade NOTEBOOK``, ``grade batch``, the Gradescope bundle's ``run_autograder`` (the learner from
``submission_metadata.json``) and ``nbgrader autograde`` (the student id of its folder). They must agree question by
question, and flag a swapped notebook, a copied Part 1 and nbgrader's one release to all where each can show it.

Each tool draws a learner's numbers from the identity it knows: a batch (a flat folder) and nbgrader from the
learner id, Gradescope from the e-mail; so the class is released twice, the second roster giving each learner's
e-mail as their identity (a Gradescope course's roster), and each learner answers alike on each release's numbers.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.lessons import load_lesson
from grader.params import SECRET_ENV, default_params, draw
from tests.conftest import REPO

pytestmark = pytest.mark.slow

SECRET = "a-class-of-variants-secret-0123456789"
LESSON = load_lesson("decode")
PART1 = ("gb_per_step", "ms_per_token", "max_tokens_per_s")
#: Answered alike by everyone: a choice and a function question, so the agreement covers more than Part 1.
COMMON = ("answer_sequential", "decode_step_seconds")


def _answers(numbers: dict[str, Any], slip: bool = False) -> dict[str, str]:
    """Part 1 worked on ``numbers``; ``slip``: ms_per_token in microseconds (1000x too big)."""
    step = f"{numbers['params_b']}e9 * {numbers['bytes_per_param']} / ({numbers['tb_per_s']}e12)"
    return {
        "gb_per_step": f"gb_per_step = {numbers['params_b']}e9 * {numbers['bytes_per_param']} / 1e9",
        "ms_per_token": f"ms_per_token = {step} * {1e6 if slip else 1000}",
        "max_tokens_per_s": f"max_tokens_per_s = round(1 / ({step}), 1)",
    }


def _triple(numbers: dict[str, Any]) -> tuple[float, float, float]:
    gb = numbers["params_b"] * numbers["bytes_per_param"]
    return gb, round(gb / numbers["tb_per_s"], 2), round(1000 / (gb / numbers["tb_per_s"]), 1)


def _learners() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Five learners, each with their numbers drawn from their learner id and from their e-mail, whose three Part 1
    answers differ from every other's (and from the page's) either way."""
    chosen: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for i in range(300):
        who = f"learner{i}"
        numbers = _drawn(who)
        if all(_apart(numbers[k], [dict(default_params(LESSON)), *(c[k] for c in chosen.values())]) for k in (0, 1)):
            chosen[who] = (numbers[0], numbers[1])
        if len(chosen) == 5:
            return chosen
    raise AssertionError("no five learners with distinct Part 1 answers")


def _drawn(learner: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A learner's numbers drawn from their learner id, and from their e-mail."""
    by_id, by_email = (dict(draw(LESSON, identity, SECRET.encode())) for identity in (learner, _email(learner)))
    return by_id, by_email


def _email(learner: str) -> str:
    return f"{learner}@example.org"


def _apart(numbers: dict[str, Any], others: list[dict[str, Any]]) -> bool:
    mine = _triple(numbers)
    return all(a != b for other in map(_triple, others) for a, b in zip(mine, other, strict=True))


def _filled(notebook: Path, answers: dict[str, str], out: Path) -> Path:
    """``notebook`` with the answer cells (cell id = question id) of ``answers`` replaced."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in (c for c in nb.cells if c.get("id") in answers):
        cell.source = answers[cell.id]
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, "GRADER_LESSONS")}
    return env | {"GRADER_DAEMON": "off", "PYTHONPATH": str(REPO)} | extra


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=900)
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-3000:]
    return run


def _by_question(questions: list[dict[str, Any]]) -> dict[str, float]:
    return {str(q["id"]): float(q["score"]) for q in questions}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The class released, answered and graded four ways; what each way gave, per learner."""
    tmp = tmp_path_factory.mktemp("class")
    learners = _learners()
    page = dict(default_params(LESSON))
    ada, bob, cy, dee, eve = learners
    # fay is given the lesson page's notebook (nbgrader's release, the committed one), not her own
    fay = next(f for f in (f"fay{i}" for i in range(50)) if all(_apart(n, [page]) for n in _drawn(f)))
    secret_env = _env(**{SECRET_ENV: SECRET, "GRADER_LESSONS": str(REPO / "exercises")})
    # A batch and nbgrader know a learner by their learner id; Gradescope by their e-mail, so a Gradescope
    # course's roster gives it as the identity: one release each way, the same answers on each one's numbers.
    rosters = {"id": [["learner"], *([w] for w in learners)], "email": [["learner", "identity"]]}
    rosters["email"] += [[w, _email(w)] for w in learners]
    releases = (("released", "id", []), ("released-nbgrader", "id", ["--nbgrader"]), ("released-gs", "email", []))
    for out, roster, extra in releases:
        with (tmp / f"{roster}.csv").open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rosters[roster])
        build = ["build", "exercises/decode", "--roster", str(tmp / f"{roster}.csv"), "--out", str(tmp / out)]
        _run(["grade", *build, *extra], REPO, secret_env)
    solution = {c.id: c.source for c in nbformat.read(LESSON.solution, as_version=4).cells if c.get("id") in COMMON}
    # whose released notebook each hands in, worked on whose numbers, with or without a slip
    handed = {ada: (ada, ada, False), bob: (bob, cy, False), cy: (cy, cy, False), dee: (cy, cy, False)}
    handed[eve] = (eve, eve, True)  # bob copies cy's Part 1 into his own notebook; dee hands in cy's notebook
    notebooks: dict[str, dict[str, Path]] = {}
    for folder, roster, _ in releases:
        notebooks[folder] = {}
        for who, (owner, whose, slip) in handed.items():
            answers = {**solution, **_answers(learners[whose][roster == "email"], slip)}
            dest = tmp / f"handed-{folder}" / who / "decode.ipynb"
            notebooks[folder][who] = _filled(tmp / folder / owner / "decode.ipynb", answers, dest)
    page_answers = {**solution, **_answers(page)}
    for folder in ("released", "released-gs"):
        notebooks[folder][fay] = _filled(LESSON.notebook, page_answers, tmp / f"handed-{folder}" / fay / "decode.ipynb")
    plain = notebooks["released"]
    results: dict[str, Any] = {"learners": [*learners, fay], "roles": (ada, bob, cy, dee, eve, fay)}

    # 1. grade NOTEBOOK (what the command runs, one grader for the six): no identity, the numbers it states
    from grader.grader import Grader
    from grader.pipeline import GradeOptions, read_for_lesson
    from grader.report import report_to_dict

    options = GradeOptions(lesson="decode")
    results["grade"] = {}
    with Grader.cold(options) as grader:
        for who, path in plain.items():
            submission, lesson_id = read_for_lesson(path, options)
            results["grade"][who] = report_to_dict(grader.grade(submission, lesson_id))

    # 2. grade batch: a flat folder, each file named by the learner id
    flat = tmp / "batch"
    flat.mkdir()
    for who, path in plain.items():
        shutil.copy(path, flat / f"{who}.ipynb")
    _run(["grade", "batch", str(flat), "--lesson", "decode", "--out", str(tmp / "results")], REPO, secret_env)
    lines = (tmp / "results" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    results["batch"] = {str(row["learner"]): row for row in map(json.loads, lines)}
    results["feedback"] = tmp / "results"

    # 3. Gradescope: the bundle (built with the secret), its run_autograder, the submitter's e-mail
    from grader.integrations.gradescope_bundle import VENV_ENV, build_bundle

    os.environ[SECRET_ENV] = SECRET
    try:
        build_bundle(LESSON, tmp / "bundle.zip")
    finally:
        del os.environ[SECRET_ENV]
    root = tmp / "autograder"
    with zipfile.ZipFile(tmp / "bundle.zip") as zf:
        zf.extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    env = _env(AUTOGRADER_ROOT=str(root), **{VENV_ENV: str(tmp / "no-venv")})
    results["gradescope"] = {}
    for who, path in notebooks["released-gs"].items():
        shutil.rmtree(root / "submission", ignore_errors=True)
        (root / "submission").mkdir()
        shutil.copy(path, root / "submission" / "decode.ipynb")
        meta = {"users": [{"email": _email(who), "name": who}]}
        (root / "submission_metadata.json").write_text(json.dumps(meta), encoding="utf-8")
        _run([str(root / "source" / "run_autograder")], root, env)
        out = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        out["by_question"] = {q.id: float(t["score"]) for q, t in zip(LESSON.questions, out["tests"], strict=True)}
        results["gradescope"][who] = out

    # 4. nbgrader: its own release for fay, each other student's notebook of `grade build --roster --nbgrader`
    course = tmp / "course"
    url = f"sqlite:///{course / 'gradebook.db'}"
    (course / "source" / "ps1").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\nc.CourseDirectory.db_url = {url!r}\n"
        "c.Execute.iopub_timeout = 60\n"  # as tests/test_nbgrader.py's CONFIG: a loaded machine
    )
    shutil.copy(REPO / "exercises" / "decode" / "nbgrader" / "decode.ipynb", course / "source" / "ps1")
    nbgrader = [sys.executable, "-m", "nbgrader"]
    _run([*nbgrader, "generate_assignment", "ps1"], course, secret_env)
    for who in learners:
        dest = course / "submitted" / who / "ps1" / "decode.ipynb"
        dest.parent.mkdir(parents=True)
        shutil.copy(notebooks["released-nbgrader"][who], dest)
    release = course / "release" / "ps1" / "decode.ipynb"
    _filled(release, page_answers, course / "submitted" / fay / "ps1" / "decode.ipynb")
    run = _run([*nbgrader, "autograde", "ps1"], course, secret_env)
    assert run.returncode == 0, run.stderr[-3000:]
    from nbgrader.api import Gradebook

    results["nbgrader"], results["nbgrader_output"] = {}, {}
    with Gradebook(url) as gb:
        for who in results["learners"]:
            grades = gb.find_submission_notebook("decode", "ps1", who).grades
            results["nbgrader"][who] = {g.name.removeprefix("test_"): float(g.score) for g in grades}
    for who in results["learners"]:
        nb = nbformat.read(course / "autograded" / who / "ps1" / "decode.ipynb", as_version=4)
        results["nbgrader_output"][who] = {
            c.id.removeprefix("test_"): "".join(o.get("text", "") + str(o.get("data", "")) for o in c.outputs)
            for c in nb.cells
            if c.cell_type == "code" and c.get("id", "").startswith("test_")
        }
    return results


def test_batch_gradescope_and_nbgrader_agree_question_by_question(graded: dict[str, Any]) -> None:
    for who in graded["learners"]:
        batch = _by_question(graded["batch"][who]["questions"])
        assert graded["gradescope"][who]["by_question"] == batch, who
        assert graded["nbgrader"][who] == pytest.approx(batch, abs=1e-9), who


def test_each_learner_gets_part_1_only_on_their_own_numbers(graded: dict[str, Any]) -> None:
    ada, bob, cy, dee, eve, fay = graded["roles"]
    part1 = {who: {q: _by_question(graded["batch"][who]["questions"])[q] for q in PART1} for who in graded["learners"]}
    assert part1[ada] == part1[cy] == dict.fromkeys(PART1, 1.0)
    assert part1[bob] == part1[dee] == part1[fay] == dict.fromkeys(PART1, 0.0)
    assert part1[eve] == {"gb_per_step": 1.0, "ms_per_token": 0.0, "max_tokens_per_s": 1.0}
    for who in graded["learners"]:
        assert _by_question(graded["batch"][who]["questions"])["decode_step_seconds"] == 2.0, who


def test_grade_notebook_agrees_but_for_the_swapped_notebook_which_it_grades_on_the_numbers_it_shows(
    graded: dict[str, Any],
) -> None:
    """``grade NOTEBOOK`` knows no identity: it grades on the notebook's display copy and says the official
    grade recomputes it, or on the page's numbers when it has none (fay's). Every other notebook shows its
    learner's own numbers, so agrees."""
    ada, bob, cy, dee, eve, fay = graded["roles"]
    for who in graded["learners"]:
        mine = _by_question(graded["grade"][who]["questions"])
        if who == fay:
            assert {q: mine[q] for q in PART1} == dict.fromkeys(PART1, 1.0)
        elif who == dee:
            assert mine == _by_question(graded["batch"][cy]["questions"])  # cy's notebook, cy's numbers
            assert any("Graded on the numbers this notebook states" in e for e in graded["grade"][who]["errors"])
        else:
            assert mine == _by_question(graded["batch"][who]["questions"]), who


def test_the_swapped_notebook_is_flagged_by_every_tool_that_knows_the_learner(graded: dict[str, Any]) -> None:
    ada, bob, cy, dee, eve, fay = graded["roles"]
    released_to = f"released to '{cy}'"
    assert any(released_to in e for e in graded["batch"][dee]["errors"])
    assert released_to in graded["gradescope"][dee]["output"]
    assert all(released_to in graded["nbgrader_output"][dee][q] for q in PART1)
    for who in (ada, bob, cy, eve):
        assert not any("This notebook shows" in e for e in graded["batch"][who]["errors"]), who
        assert "This notebook shows" not in graded["gradescope"][who]["output"], who
        assert not any("This notebook shows" in t for t in graded["nbgrader_output"][who].values()), who


def test_a_copied_part_1_is_flagged_and_a_slip_is_not(graded: dict[str, Any]) -> None:
    """The copy is found by regrading on other numbers: ``grade``, the batch and Gradescope do; nbgrader's test
    cells grade one question at a time and cannot."""
    ada, bob, cy, dee, eve, fay = graded["roles"]
    copied = "right for another learner's numbers"
    assert any(copied in e for e in graded["batch"][bob]["errors"])
    assert any(copied in e for e in graded["grade"][bob]["errors"])
    assert copied in graded["gradescope"][bob]["output"]
    for tool in ("batch", "grade"):
        assert not any("right for" in e for e in graded[tool][eve]["errors"])
    assert "right for" not in graded["gradescope"][eve]["output"]
    slip = next(q for q in graded["batch"][eve]["questions"] if q["id"] == "ms_per_token")
    assert any("the step time in microseconds" in line for line in slip["feedback"])  # 1,000 times too big
    assert "the step time in microseconds" in graded["nbgrader_output"][eve]["ms_per_token"]


def test_the_page_s_notebook_is_flagged_and_nbgrader_says_how_to_release_each_student_s(
    graded: dict[str, Any],
) -> None:
    *_, fay = graded["roles"]
    page = "shows the lesson page's numbers, not yours"
    assert any(page in e for e in graded["batch"][fay]["errors"])
    assert page in graded["gradescope"][fay]["output"]
    for q in PART1:
        assert page in graded["nbgrader_output"][fay][q]
        assert "grade build exercises/decode --roster roster.csv --nbgrader" in graded["nbgrader_output"][fay][q]
