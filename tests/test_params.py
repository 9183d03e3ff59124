"""Learner parameters (grader/params.py): declared in lesson data, drawn by one rule from identity and course
secret, released one notebook per learner, and graded on the numbers recomputed from the identity."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.build import build_lesson
from grader.authoring.release import read_roster, release
from grader.errors import CourseSecretMissing, LessonError
from grader.lessons import load_lesson
from grader.model import Submission
from grader.params import (
    SECRET_ENV,
    SECRET_FILE,
    course_secret,
    default_params,
    draw,
    every_params,
    graded_params,
    render,
    require_secret,
    swap_note,
)
from tests.lesson_support import answer_shop

FIXTURE = Path(__file__).parent / "fixtures" / "param_lessons" / "shop"
SECRET = "a-course-secret-long-enough-1234"


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A course folder with the shop lesson built (its notebooks on the page's numbers), and no secret set."""
    monkeypatch.delenv(SECRET_ENV, raising=False)
    shutil.copytree(FIXTURE, tmp_path / "exercises" / "shop")
    build_lesson(load_lesson("shop", tmp_path / "exercises"))
    return tmp_path


def _lesson(course: Path) -> Any:
    return load_lesson("shop", course / "exercises")


def _definition(tmp_path: Path, params: str) -> Path:
    folder = tmp_path / "exercises" / "shop"
    shutil.copytree(FIXTURE, folder, dirs_exist_ok=True)
    text = (FIXTURE / "lesson.toml").read_text(encoding="utf-8")
    (folder / "lesson.toml").write_text(text.split("[params.items]")[0] + params, encoding="utf-8")
    return tmp_path / "exercises"


# -- declared in lesson data -----------------------------------------------------------------------------------


def test_values_tables_and_ranges_are_read_with_their_defaults(course: Path) -> None:
    lesson = _lesson(course)
    items, shop = lesson.params
    assert [c[0][1] for c in items.choices] == [3, 5, 7, 9] and items.default == 1
    assert shop.fields == ("shop", "price") and shop.default == 0
    assert default_params(lesson) == (("items", 5), ("shop", "the corner shop"), ("price", 1.25))
    assert len(every_params(lesson)) == 8 and every_params(lesson)[0] == default_params(lesson)


def test_a_lesson_without_params_has_none(tmp_path: Path) -> None:
    lesson = load_lesson("shop", _definition(tmp_path, ""))  # the shop lesson, its [params] left out
    assert lesson.params == () and default_params(lesson) == () and every_params(lesson) == [()]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ('[params.items]\nrange = [3, 9]\nquestions = ["total"]\n', "step"),
        ("[params.items]\nrange = [3, 9]\nstep = 2\ndefault = 4\n", "default"),
        ('[params.items]\nvalues = [1, 2]\nquestions = ["nope"]\n', "nope"),
        ("[params.items]\nvalues = []\n", "non-empty"),
        ("[params.items]\nvalues = [1, 1]\n", "twice"),
        ("[params.a]\nvalues = [{ x = 1 }]\n[params.b]\nvalues = [{ x = 2 }]\n", "two parameters"),
        ("[params.items]\nvalues = [true]\n", "number or a string"),
        ('[params.items]\nvalues = [{ "not a name" = 1 }]\n', "not a name"),
        ("[params.items]\nvalues = [1]\nstep = 2\nrange = [1, 2]\n", "either"),
    ],
)
def test_a_bad_declaration_says_what_to_fix(tmp_path: Path, params: str, says: str) -> None:
    root = _definition(tmp_path, params)
    with pytest.raises(LessonError, match=says):
        load_lesson("shop", root)


def test_render_fills_declared_names_only() -> None:
    params = (("items", 7), ("price", 0.8))
    assert render("{items} at {price}, {other} and {'a': 1}", params) == "7 at 0.8, {other} and {'a': 1}"
    assert render("{items}", ()) == "{items}"


# -- one rule for who gets which -------------------------------------------------------------------------------


def test_the_draw_is_hmac_sha256_of_lesson_identity_and_parameter(course: Path) -> None:
    """A teaching assistant with the secret reproduces anyone's numbers from the documented rule."""
    lesson = _lesson(course)
    got = draw(lesson, "ada", SECRET.encode())
    expected: list[Any] = []
    for param in lesson.params:
        digest = hmac.new(SECRET.encode(), f"shop\0ada\0{param.name}".encode(), hashlib.sha256).digest()
        expected.extend(param.choices[int.from_bytes(digest[:8], "big") % len(param.choices)])
    assert got == tuple(expected)
    assert draw(lesson, " ada ", SECRET.encode()) == got  # the same identity, however it was typed


def test_identities_and_secrets_spread_learners_over_the_values(course: Path) -> None:
    lesson = _lesson(course)
    drawn = {draw(lesson, f"learner{i}", SECRET.encode()) for i in range(40)}
    assert len(drawn) >= 6  # of 8: not everyone on one set of numbers
    assert set(drawn) <= set(every_params(lesson))
    other = [draw(lesson, f"learner{i}", b"another-secret-that-is-long") for i in range(40)]
    assert other != [draw(lesson, f"learner{i}", SECRET.encode()) for i in range(40)]


def test_the_secret_comes_from_the_environment_or_the_course_file(course: Path, monkeypatch: Any) -> None:
    root = course / "exercises"
    assert course_secret(root) is None
    with pytest.raises(CourseSecretMissing, match=f"{SECRET_ENV}.*{SECRET_FILE}"):
        require_secret(_lesson(course), root)
    (root / SECRET_FILE).write_text(SECRET + "\n", encoding="utf-8")
    assert require_secret(_lesson(course), root) == SECRET.encode()
    monkeypatch.setenv(SECRET_ENV, "from-the-environment-wins")
    assert course_secret(root) == b"from-the-environment-wins"
    monkeypatch.setenv(SECRET_ENV, "short")
    with pytest.raises(CourseSecretMissing, match="guess"):
        course_secret(root)


def test_the_secret_file_is_never_committed() -> None:
    ignored = (Path(__file__).parent.parent / ".gitignore").read_text(encoding="utf-8").split()
    assert SECRET_FILE in ignored


# -- what grading uses ---------------------------------------------------------------------------------------


def _submission(params: Any = None, shown: Any = (), learner: str | None = None) -> Submission:
    return Submission(Path("x.ipynb"), (), "shop", "d", params=params, shown_params=shown, shown_learner=learner)


def test_grading_trusts_the_identity_over_the_display_copy(course: Path) -> None:
    lesson = _lesson(course)
    ada, bob = (draw(lesson, who, SECRET.encode()) for who in ("ada", "bob3"))
    assert ada != bob
    assert graded_params(lesson, _submission(ada, shown=bob)) == ada
    assert graded_params(lesson, _submission(shown=bob)) == bob  # self-grading: the notebook's own numbers
    assert graded_params(lesson, _submission(shown=tuple(sorted(bob)))) == bob  # as metadata comes back: sorted
    assert swap_note(lesson, _submission(bob, shown=tuple(sorted(bob))), bob) is None
    assert graded_params(lesson, _submission(shown=(("items", 4),))) == default_params(lesson)  # not a valid copy
    note = swap_note(lesson, _submission(ada, shown=bob, learner="bob3"), ada)
    assert note is not None and "'bob3'" in note and "items = " in note
    assert swap_note(lesson, _submission(ada, shown=ada), ada) is None
    page = default_params(lesson)
    assert swap_note(lesson, _submission(page), page) is None  # the page's notebook carries no copy: the page's
    other = next(d for d in (draw(lesson, f"s{i}", SECRET.encode()) for i in range(50)) if d != page)
    note = swap_note(lesson, _submission(other), other)  # ...so it is not the notebook of a learner with others
    assert note is not None and "shows the lesson page's numbers, not yours" in note


# -- release ---------------------------------------------------------------------------------------------------


def _roster(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_release_writes_one_notebook_per_learner_with_their_numbers(course: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    roster = _roster(course / "roster.csv", "learner,identity\nada,\nbob,12345\ncy,\n")
    written = release(lesson, roster, course / "released", course / "exercises")
    assert [p.relative_to(course / "released").as_posix() for p in written] == [
        "ada/shop.ipynb",
        "bob/shop.ipynb",
        "cy/shop.ipynb",
    ]
    for path, who, identity in zip(written, ("ada", "bob", "cy"), ("ada", "12345", "cy"), strict=True):
        nb = json.loads(path.read_text(encoding="utf-8"))
        params = dict(draw(lesson, identity, SECRET.encode()))
        assert nb["metadata"]["grader"] == {"lesson": "shop", "learner": who, "params": params}
        text = "".join(nb["cells"][0]["source"])
        assert f"**{params['items']} items** at {params['shop']}, **{params['price']:g} each**" in text
        assert "{not_a_param}" in text
        setup = "".join(nb["cells"][1]["source"])
        assert f"params={params!r}" in setup
        assert "{items}" not in json.dumps(nb)
    again = release(lesson, roster, course / "again", course / "exercises")
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in written]  # a rerun: the same numbers


def test_release_without_a_secret_says_how_to_set_one(course: Path) -> None:
    roster = _roster(course / "roster.csv", "learner\nada\n")
    with pytest.raises(CourseSecretMissing, match=SECRET_ENV):
        release(_lesson(course), roster, course / "released", course / "exercises")
    assert not (course / "released").exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name\nada\n", "`learner` column"),
        ("learner\nada\nada\n", "twice"),
        ("learner\n../x\n", "line 2"),
        ("learner\nada\nbob@example.org\n", "line 3: the learner id 'bob@example.org'.*`identity` column"),
        ("learner\nada.\n", "as a batch knows them"),  # a batch would know them as `ada`
        ("learner\n", "no learners"),
    ],
)
def test_a_bad_roster_names_the_line(tmp_path: Path, text: str, says: str) -> None:
    from grader.errors import UsageError

    with pytest.raises(UsageError, match=says):
        read_roster(_roster(tmp_path / "r.csv", text))


# -- the suites take the numbers as a fixture -----------------------------------------------------------------


def test_self_check_grades_on_the_numbers_the_notebook_was_released_with(course: Path, capsys: Any) -> None:
    """The same answer is right for the learner whose numbers it works and wrong (and told why) for the page's."""
    from grader.selfcheck import connect

    root = str(course / "exercises")
    mine = {"items": 7, "shop": "the market", "price": 0.8}
    namespace: dict[str, Any] = {"total": 7 * 0.8, "unit_price": lambda total, items: total / items}
    check, _, hint = connect("shop", namespace, root, params=mine)
    check("total")
    hint("total")
    out = capsys.readouterr().out
    assert "✓ total: 1/1" in out and "Multiply the 7 items by 0.8 each." in out
    check_page, _, _ = connect("shop", namespace, root)  # the page's notebook: the page's numbers
    check_page("total")
    assert "not the price of your 5 items" in capsys.readouterr().out
    namespace["total"] = 5 * 1.25
    check_page("total")
    assert "✓ total: 1/1" in capsys.readouterr().out
    check("total")
    assert "the page's basket, not yours" in capsys.readouterr().out  # a diagnosis computed from the numbers
    bogus, _, _ = connect("shop", namespace, root, params={"items": 4, "shop": "x", "price": 1})
    bogus("total")  # a copy the lesson cannot give: the page's numbers, never the copy's
    assert "✓ total: 1/1" in capsys.readouterr().out


@pytest.mark.slow
def test_grade_notebook_uses_its_numbers_and_says_the_official_grade_recomputes_them(
    course: Path, monkeypatch: Any
) -> None:
    from tests.conftest import run_grade

    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    (path,) = release(lesson, _roster(course / "r.csv", "learner\nada\n"), course / "released", course / "exercises")
    mine = dict(draw(lesson, "ada", SECRET.encode()))
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if text.startswith("total = None"):
            cell["source"] = f"total = {mine['items']} * {mine['price']}"
        cell["source"] = "".join(cell["source"]).replace(
            'raise NotImplementedError("Write unit_price', "return total / items  #"
        )
    path.write_text(json.dumps(nb), encoding="utf-8")
    result = run_grade(str(path), "--json", "--lessons", str(course / "exercises"), cwd=course)
    report = json.loads(result.stdout)
    assert report["score"] == report["max_score"] == 2, result.stdout + result.stderr
    assert any("the numbers this notebook states" in e and f"items = {mine['items']}" in e for e in report["errors"])


# -- a batch of released notebooks -------------------------------------------------------------------------------


def _batch(course: Path, folder: Path, out: Path) -> dict[str, dict[str, Any]]:
    from grader.batch import BatchOptions, run_batch
    from grader.pipeline import GradeOptions

    options = BatchOptions(grading=GradeOptions(lesson="shop", lessons_root=course / "exercises"), jobs=1)
    run_batch(folder, out, options)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {str(row["learner"]): row for row in rows}


@pytest.mark.slow
def test_a_batch_grades_each_learner_on_their_own_numbers_and_flags_a_swapped_notebook(
    course: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    names = ["ada", "bob", "cy", "dee", "eve", "fay"]
    drawn = {n: dict(draw(lesson, n, SECRET.encode())) for n in names}
    ada, bob, cy = sorted(names, key=lambda n: (drawn[n]["items"], drawn[n]["price"]))[::2][:3]
    assert len({(drawn[n]["items"], drawn[n]["price"]) for n in (ada, bob, cy)}) == 3
    roster = _roster(course / "r.csv", "learner\n" + "\n".join((ada, bob, cy)) + "\n")
    release(lesson, roster, course / "released", course / "exercises")
    submitted = course / "class"
    submitted.mkdir()
    for who in (ada, bob, cy):
        answer_shop(course / "released" / who / "shop.ipynb", drawn[who])
    shutil.copy(course / "released" / ada / "shop.ipynb", submitted / f"{ada}.ipynb")
    shutil.copy(course / "released" / cy / "shop.ipynb", submitted / f"{bob}.ipynb")  # bob hands in cy's work
    shutil.copy(course / "released" / cy / "shop.ipynb", submitted / f"{cy}.ipynb")
    rows = _batch(course, submitted, course / "results")
    assert rows[ada]["score"] == 2 and rows[cy]["score"] == 2 and rows[bob]["score"] == 1, rows
    assert not any("other numbers" in e for e in rows[ada]["errors"] + rows[cy]["errors"])
    assert any(f"released to '{cy}'" in e and f"items = {drawn[bob]['items']}" in e for e in rows[bob]["errors"])
    whose = "the lesson page's" if drawn[cy] == dict(default_params(lesson)) else "another learner's"
    assert any(f"right for {whose} numbers" in e for e in rows[bob]["errors"]), rows[bob]["errors"]
    total = next(q for q in rows[bob]["questions"] if q["id"] == "total")  # the answer says which set it matches
    assert f"right for {whose} numbers" in total["feedback"][0] and "can't tell" not in str(total["feedback"]), total
    again = _batch(course, submitted, course / "results-again")
    assert {n: r["score"] for n, r in again.items()} == {n: r["score"] for n, r in rows.items()}
    monkeypatch.delenv(SECRET_ENV)
    alone = _batch(course, submitted, course / "results-no-secret")  # each released notebook refused alone
    for learner, row in alone.items():
        shown = drawn[cy if learner == bob else learner]
        refused = shown != dict(default_params(lesson))
        assert (row["status"] == "unreadable") == refused, row
        assert not refused or any("no secret" in f for q in row["questions"] for f in q["feedback"]), row


@pytest.mark.slow
def test_a_notebooks_numbers_never_stop_a_class_without_a_secret(course: Path) -> None:
    """A course without a secret (as the repository ships): one notebook whose metadata carries numbers used to
    stop the whole batch before anyone was graded ("create a secret"). Now only that notebook's row is touched:
    numbers no release writes (``{"a": 1}``) are graded on the page's numbers like everyone's, and a set the
    lesson gives other than the page's is refused alone, with a sentence for the teaching assistant."""
    from grader.batch import BatchOptions, run_batch
    from grader.pipeline import GradeOptions

    lesson = _lesson(course)
    page = dict(default_params(lesson))
    other = next(dict(p) for p in every_params(lesson) if dict(p) != page)
    submitted = course / "class"
    submitted.mkdir()
    for who, shown in (("ada", None), ("eve", {"a": 1}), ("mal", other)):
        path = submitted / f"{who}.ipynb"
        shutil.copy(lesson.notebook, path)
        answer_shop(path, page)
        if shown is not None:
            nb = json.loads(path.read_text(encoding="utf-8"))
            nb["metadata"].setdefault("grader", {})["params"] = shown
            path.write_text(json.dumps(nb), encoding="utf-8")
    options = BatchOptions(grading=GradeOptions(lesson="shop", lessons_root=course / "exercises"), jobs=1)
    summary = run_batch(submitted, course / "results", options)
    rows = {row.learner: row for row in summary.rows}
    assert rows["ada"].status == rows["eve"].status == "graded" and rows["ada"].score == rows["eve"].score == 2
    assert rows["mal"].status == "unreadable" and "no secret" in rows["mal"].reason, rows["mal"]
    assert any("1 notebook(s) were released with their learner's own numbers" in n for n in summary.notes)


@pytest.mark.slow
def test_the_corpus_grades_an_answer_that_uses_the_numbers_on_every_set(course: Path) -> None:
    """A corpus file naming {items} is graded on each set of grader.params.spread, written for its numbers,
    and reported per set; a file about another question only on the page's."""
    from grader.authoring.corpus import check_lesson

    mistakes = course / "exercises" / "shop" / "mistakes"
    mistakes.mkdir()
    (mistakes / "ok_total.py").write_text(
        "# kind: correct\n# about: the total of {items} items\n\ntotal = {price} * {items}\n", encoding="utf-8"
    )
    (mistakes / "page_total.py").write_text(
        "# kind: wrong\n# about: the page's basket\n# expect total: wrong /the page's basket/\n\ntotal = 5 * 1.25\n",
        encoding="utf-8",
    )
    (mistakes / "unit_inverted.py").write_text(
        "# kind: wrong\n# about: inverted\n# expect unit_price: wrong /not 2.5/\n\n"
        "def unit_price(total, items):\n    return items / total\n",
        encoding="utf-8",
    )
    report = check_lesson("shop", lessons_root=course / "exercises")
    assert [numbers for numbers, _ in report.by_params] == [
        "items = 5, shop = the corner shop, price = 1.25",
        "items = 7, shop = the market, price = 0.8",
        "items = 9, shop = the corner shop, price = 1.25",
        "items = 3, shop = the market, price = 0.8",
    ]
    # the page's basket is right on the page's numbers: a wrong verdict there, caught on the three others
    assert [(r.correct_kept, r.correct_answers, r.wrong_caught, r.wrong_answers) for _, r in report.by_params] == [
        (1, 1, 1, 2),
        (1, 1, 1, 1),
        (1, 1, 1, 1),
        (1, 1, 1, 1),
    ]
    assert [p.entry for p in report.problems] == ["page_total"]


# -- Gradescope and nbgrader know whose notebook it is ------------------------------------------------------------


def test_gradescope_names_the_learner_by_the_first_users_email(tmp_path: Path) -> None:
    from grader.integrations.gradescope import gradescope_identity

    assert gradescope_identity(tmp_path) is None
    meta = {"users": [{"email": " Ada@Example.org ", "id": 1234, "name": "Ada"}, {"email": "bob@example.org"}]}
    (tmp_path / "submission_metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    assert gradescope_identity(tmp_path) == "ada@example.org"
    (tmp_path / "submission_metadata.json").write_text('{"users": []}', encoding="utf-8")
    assert gradescope_identity(tmp_path) is None


def test_nbgrader_autograde_names_the_student_by_the_folder_it_runs_in(course: Path, monkeypatch: Any) -> None:
    from grader.integrations.nbgrader import autograded_student, cell_result

    assert autograded_student(course / "autograded" / "ada" / "shop") == "ada"
    assert autograded_student(course / "submitted" / "ada" / "shop") is None
    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    student = next(
        n for n in (f"s{i}" for i in range(50)) if draw(lesson, n, SECRET.encode()) != default_params(lesson)
    )
    mine = dict(draw(lesson, student, SECRET.encode()))
    folder = course / "autograded" / student / "shop"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    namespace = {"total": mine["items"] * mine["price"]}
    assert cell_result("shop", "total", namespace, course / "exercises").status == "passed"
    namespace = {"total": 5 * 1.25}  # the page's numbers: not this student's
    assert cell_result("shop", "total", namespace, course / "exercises").status == "failed"


def test_the_gradescope_bundle_carries_the_course_secret_of_a_lesson_with_params(
    course: Path, monkeypatch: Any
) -> None:
    import zipfile

    from grader.integrations.gradescope_bundle import build_bundle

    monkeypatch.setenv(SECRET_ENV, SECRET)
    names = build_bundle(_lesson(course), course / "ag.zip")
    assert f"exercises/{SECRET_FILE}" in names
    with zipfile.ZipFile(course / "ag.zip") as zf:
        assert zf.read(f"exercises/{SECRET_FILE}").decode().strip() == SECRET
    plain = load_lesson("shop", _definition(course, ""))  # the same lesson, its [params] left out
    assert f"exercises/{SECRET_FILE}" not in build_bundle(plain, course / "plain.zip")


@pytest.mark.slow
def test_gradescope_grades_the_submitter_on_their_own_numbers(course: Path, monkeypatch: Any) -> None:
    from grader.integrations.gradescope import grade_for_gradescope
    from grader.pipeline import GradeOptions

    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    emails = [f"learner{i}@example.org" for i in range(30)]
    ada, bob = next(
        (a, b) for a in emails for b in emails if draw(lesson, a, SECRET.encode()) != draw(lesson, b, SECRET.encode())
    )
    roster = _roster(course / "r.csv", f"learner,identity\nada,{ada}\nbob,{bob}\n")
    release(lesson, roster, course / "released", course / "exercises")
    path = course / "released" / "ada" / "shop.ipynb"
    answer_shop(path, dict(draw(lesson, ada, SECRET.encode())))
    root = course / "autograder"
    (root / "submission").mkdir(parents=True)
    shutil.copy(path, root / "submission" / "shop.ipynb")
    options = GradeOptions(lesson="shop", lessons_root=course / "exercises")
    for email, score in ((ada, 2.0), (bob, 1.0)):  # bob submitting ada's notebook is graded on bob's numbers
        (root / "submission_metadata.json").write_text(json.dumps({"users": [{"email": email}]}), encoding="utf-8")
        results = grade_for_gradescope(root, options)
        assert results["score"] == score, results
    assert "released to 'ada'" in results["output"]


def test_answers_right_only_for_other_numbers_are_flagged_and_a_slip_is_not(course: Path) -> None:
    from grader.model import TestOutcome
    from grader.params import other_numbers_note

    lesson = _lesson(course)
    page = default_params(lesson)
    mine = next(d for d in (draw(lesson, f"s{i}", SECRET.encode()) for i in range(50)) if d != page)
    failed = (TestOutcome("total", "t", 1, "failed"), TestOutcome("unit_price", "u", 1, "passed"))
    tried: list[Any] = []

    def right_for_the_page(questions: frozenset[str], other: Any) -> list[TestOutcome]:
        tried.append(other)
        return [TestOutcome("total", "t", 1, "passed" if other == page else "failed")]

    note = other_numbers_note(lesson, mine, failed, right_for_the_page)
    assert note is not None and "the lesson page's numbers" in note and "(total)" in note
    assert mine not in tried
    assert other_numbers_note(lesson, mine, failed, lambda q, o: [TestOutcome("total", "t", 1, "failed")]) is None
    untouched = (TestOutcome("total", "t", 1, "not-attempted"),)
    assert other_numbers_note(lesson, mine, untouched, right_for_the_page) is None
    passed = (TestOutcome("total", "t", 1, "passed"),)
    assert other_numbers_note(lesson, mine, passed, right_for_the_page) is None


def test_a_copied_part_1_is_flagged_when_the_two_sets_share_a_number(tmp_path: Path) -> None:
    """Two learners on one shop and different item counts: the answer that uses only the shop is right for both,
    and must not hide that every answer telling their numbers apart is right for the other's."""
    from grader.model import TestOutcome
    from grader.params import other_numbers_note

    params = (
        '[params.items]\nrange = [3, 9]\nstep = 2\ndefault = 5\nquestions = ["total"]\n\n'
        '[params.shop]\nvalues = [{ shop = "the corner shop", price = 1.25 }, { shop = "the market", price = 0.8 }]\n'
        'questions = ["unit_price"]\n'
    )
    lesson = load_lesson("shop", _definition(tmp_path, params))
    mine = (("items", 3), ("shop", "the market"), ("price", 0.8))
    theirs = (("items", 7), ("shop", "the market"), ("price", 0.8))
    outcomes = (TestOutcome("total", "t", 1, "failed"), TestOutcome("unit_price", "u", 1, "passed"))
    asked: list[frozenset[str]] = []

    def right_for_theirs(questions: frozenset[str], other: Any) -> list[TestOutcome]:
        asked.append(questions)
        return [TestOutcome(q, q[0], 1, "passed" if other == theirs else "failed") for q in questions]

    note = other_numbers_note(lesson, mine, outcomes, right_for_theirs)
    assert note is not None and "another learner's numbers" in note and "items = 7" in note, note
    assert all(q == frozenset({"total"}) for q in asked)  # only what tells the sets apart is run again
    slip = (TestOutcome("total", "t", 1, "failed"), TestOutcome("unit_price", "u", 1, "failed"))
    assert other_numbers_note(lesson, mine, slip, lambda q, o: [TestOutcome("total", "t", 1, "failed")]) is None


def test_answers_each_a_known_slip_on_the_learners_own_numbers_are_not_flagged(course: Path) -> None:
    """A wrong answer whose check named a known slip on the learner's own numbers (``TestOutcome.slip``) is
    evidence of that slip, even when it is also right for another set: no flag, and nothing is run again. One
    answer no known slip explains, right for that set too, keeps the flag."""
    from grader.model import TestOutcome
    from grader.params import other_numbers_note

    lesson = _lesson(course)
    page = default_params(lesson)
    mine = next(d for d in (draw(lesson, f"s{i}", SECRET.encode()) for i in range(50)) if d != page)
    tried: list[Any] = []

    def right_for_the_page(questions: frozenset[str], other: Any) -> list[TestOutcome]:
        tried.append(other)
        return [TestOutcome("total", "t", 1, "passed" if other == page else "failed")]

    slipped = (TestOutcome("total", "t", 1, "failed", slip=True), TestOutcome("unit_price", "u", 1, "passed"))
    assert other_numbers_note(lesson, mine, slipped, right_for_the_page) is None and tried == []
    copied = (TestOutcome("total", "t", 1, "failed"), TestOutcome("unit_price", "u", 1, "passed"))
    assert other_numbers_note(lesson, mine, copied, right_for_the_page) is not None


@pytest.mark.slow
def test_the_audit_grades_the_solution_on_every_set_of_numbers(course: Path) -> None:
    """The mutants are graded on the page's numbers; the solution built on each other set must keep full marks,
    and the report says it did, set by set."""
    from grader.authoring.audit.report import format_text
    from grader.authoring.audit.run import audit_lesson

    report = audit_lesson(_lesson(course))
    assert [numbers for numbers, _ in report.on_numbers] == [
        "items = 7, shop = the market, price = 0.8",
        "items = 9, shop = the corner shop, price = 1.25",
        "items = 3, shop = the market, price = 0.8",
    ]
    assert all(why is None for _, why in report.on_numbers), report.on_numbers
    assert "the solution on items = 3, shop = the market, price = 0.8: full marks" in format_text(report)


@pytest.mark.slow
def test_learner_code_cannot_read_the_course_secret(course: Path) -> None:
    """Neither from the environment (scrubbed) nor from the lessons folder's file (masked with the lessons under
    bubblewrap; at the process level it is not defended, SECURITY.md)."""
    import os
    import subprocess

    from grader.execute.sandbox import bwrap_problem

    if bwrap_problem() is not None:
        pytest.skip(f"needs bubblewrap: {bwrap_problem()}")
    secret_file = course / "exercises" / SECRET_FILE
    secret_file.write_text("a-file-secret-nobody-may-read-42\n", encoding="utf-8")
    nb = json.loads((course / "notebooks" / "shop.ipynb").read_text(encoding="utf-8"))
    probe = (
        "import os\n"
        "seen = []\n"
        f"for path in [{str(secret_file)!r}]:\n"
        "    try:\n"
        "        seen.append(open(path).read())\n"
        "    except Exception as err:\n"
        "        seen.append(type(err).__name__)\n"
        "total = repr(seen) + repr(os.environ.get('GRADER_COURSE_SECRET'))\n"
    )
    nb["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": probe})
    path = course / "probe.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    env = {**os.environ, SECRET_ENV: SECRET, "GRADER_LESSONS": str(course / "exercises"), "GRADER_DAEMON": "off"}
    result = subprocess.run(
        ["grade", str(path), "--json"], capture_output=True, text=True, cwd=course, env=env, timeout=180
    )
    report = json.loads(result.stdout)
    total = next(q for q in report["questions"] if q["id"] == "total")
    assert total["score"] == 0 and "None" in " ".join(total["feedback"]), total  # the probe ran, and saw nothing
    assert SECRET not in result.stdout and "nobody-may-read" not in result.stdout


def test_grade_params_shows_a_learners_numbers_as_the_rule_draws_them(course: Path) -> None:
    import os
    import subprocess

    from grader.params import describe

    def grade_params(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        command = ["grade", "params", "shop", "--lessons", str(course / "exercises"), *args]
        environment = {k: v for k, v in os.environ.items() if k != SECRET_ENV} | env
        return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)

    lesson = _lesson(course)
    shown = grade_params("--learner", "ada", "--identity", "ada@example.org", **{SECRET_ENV: SECRET})
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"ada: {describe(draw(lesson, 'ada@example.org', SECRET.encode()))}"
    missing = grade_params("--learner", "ada")
    assert missing.returncode != 0 and SECRET_ENV in missing.stderr and SECRET_FILE in missing.stderr


@pytest.mark.slow  # 5 s: three `grade params` processes
def test_grade_params_json_and_a_whole_roster(course: Path, tmp_path: Path) -> None:
    """`--json` is what a program reads; `--roster` draws every learner of the release's roster at once."""
    import os
    import subprocess

    from grader.params import as_dict

    def grade_params(*args: str) -> subprocess.CompletedProcess[str]:
        command = ["grade", "params", "shop", "--lessons", str(course / "exercises"), *args]
        environment = {**os.environ, SECRET_ENV: SECRET}
        return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)

    lesson = _lesson(course)
    roster = tmp_path / "roster.csv"
    roster.write_text("learner,identity\nada,ada@example.org\ngrace,\n", encoding="utf-8")
    done = grade_params("--roster", str(roster), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "lesson": "shop",
        "declares_params": True,
        "learners": [
            {"learner": who, "identity": ident, "params": as_dict(draw(lesson, ident, SECRET.encode()))}
            for who, ident in (("ada", "ada@example.org"), ("grace", "grace"))
        ],
    }
    one = grade_params("--learner", "grace", "--json")
    assert json.loads(one.stdout)["learners"] == json.loads(done.stdout)["learners"][1:]
    lines = grade_params("--roster", str(roster)).stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ada", "grace"]
    neither = grade_params()
    assert neither.returncode == 2 and "--learner NAME" in neither.stderr


# -- feedback pages speak of the learner's numbers ---------------------------------------------------------------


def test_feedback_pages_fill_a_hint_with_the_numbers_it_was_graded_on(course: Path, tmp_path: Path) -> None:
    """A hint's ``{items}`` is the learner's own number on every page, after the report went through
    results.jsonl; a name that is not a field stays as written, and a report without numbers shows the page's
    text unchanged rather than failing."""
    from dataclasses import replace

    from grader.batch.model import Row
    from grader.model import QuestionResult, Report
    from grader.report.feedback import feedback_html, feedback_markdown, feedback_view
    from grader.report.rows import row_from_dict, row_to_dict

    lesson = _lesson(course)
    total = replace(lesson.question("total"), hint="Multiply the {items} items by {price} each, not {basket}.")
    lesson = replace(lesson, questions=(total, *lesson.questions[1:]))
    mine = (("items", 7), ("shop", "the market"), ("price", 0.8))
    questions = (QuestionResult("total", 0.0, 1.0, "failed", ("total is 6.25, which is not right.",)),)
    graded = Report("shop", "ada.ipynb", 0.0, 2.0, questions, params=mine)
    row = row_from_dict(json.loads(json.dumps(row_to_dict(Row.of("ada", graded)))))
    assert row.report is not None and row.report.params == mine
    for mode in ("learner", "full", "summary"):
        view = feedback_view(row, lesson, mode)  # type: ignore[arg-type]
        for page in (feedback_html(view), feedback_markdown(view)):
            assert "Multiply the 7 items by 0.8 each, not {basket}." in page, (mode, page)
    unknown = feedback_markdown(feedback_view(Row.of("bob", replace(graded, params=())), lesson, "learner"))
    assert "Multiply the {items} items by {price} each, not {basket}." in unknown


# -- nbgrader: each student's own notebook, in nbgrader's form ---------------------------------------------------


def test_an_nbgrader_release_is_the_students_notebook_in_nbgraders_release_form(course: Path, monkeypatch: Any) -> None:
    """`--nbgrader`: each notebook has nbgrader's cell metadata and one locked test cell per question (which
    ``nbgrader autograde`` needs: the plain notebook has none, so every question would score 0), the solutions
    cleared by nbgrader, and the student's numbers in its text and display copy."""
    from grader.integrations.nbgrader import grade_cell_id

    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    roster = _roster(course / "roster.csv", "learner\nada\nbob\n")
    plain = release(lesson, roster, course / "plain", course / "exercises")
    written = release(lesson, roster, course / "released", course / "exercises", nbgrader=True)
    for path, first, who in zip(written, plain, ("ada", "bob"), strict=True):
        nb = json.loads(path.read_text(encoding="utf-8"))
        params = dict(draw(lesson, who, SECRET.encode()))
        assert nb["metadata"]["grader"] == {"lesson": "shop", "learner": who, "params": params}
        cells = {c["id"]: c for c in nb["cells"]}
        for q in lesson.questions:
            test = cells[grade_cell_id(q.id)]["metadata"]["nbgrader"]
            assert test["grade"] and test["locked"] and test["points"] == q.points and "checksum" in test
            answer = cells[q.id]
            assert answer["metadata"]["nbgrader"]["solution"] and "SOLUTION" not in "".join(answer["source"])
        assert "".join(nb["cells"][0]["source"]) == "".join(json.loads(first.read_text())["cells"][0]["source"])
        assert not any("grade_id" in json.dumps(c["metadata"]) for c in json.loads(first.read_text())["cells"])


def test_nbgrader_flags_a_notebook_that_shows_other_numbers_than_the_students(course: Path, monkeypatch: Any) -> None:
    """Under ``nbgrader autograde`` a test cell of a question that uses the numbers reads the display copy of
    the notebook it runs in: another student's is a swapped notebook; none is nbgrader's one release to all, and
    the cell says how to release each student's own."""
    from grader.integrations.nbgrader import cell_result

    monkeypatch.setenv(SECRET_ENV, SECRET)
    lesson = _lesson(course)
    page = default_params(lesson)
    others = [n for n in (f"s{i}" for i in range(50)) if draw(lesson, n, SECRET.encode()) != page]
    ada = others[0]
    bob = next(n for n in others if draw(lesson, n, SECRET.encode()) != draw(lesson, ada, SECRET.encode()))
    release(lesson, _roster(course / "r.csv", f"learner\n{ada}\n{bob}\n"), course / "rel", course / "exercises")
    folder = course / "autograded" / ada / "shop"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    namespace = {"total": 0.0}

    def said(notebook: Path | None, question: str = "total") -> str:
        for old in folder.glob("*.ipynb"):
            old.unlink()
        if notebook is not None:
            shutil.copy(notebook, folder / "shop.ipynb")
        return "\n".join(cell_result("shop", question, namespace, course / "exercises").staff)

    assert "This notebook shows" not in said(course / "rel" / ada / "shop.ipynb")
    assert f"released to '{bob}'" in said(course / "rel" / bob / "shop.ipynb")
    assert "This notebook shows" not in said(course / "rel" / bob / "shop.ipynb", "unit_price")  # uses no numbers
    page_notebook = said(_lesson(course).notebook)
    assert "shows the lesson page's numbers, not yours" in page_notebook
    assert "grade build exercises/shop --roster roster.csv --nbgrader" in page_notebook
    assert "This notebook shows" not in said(None)  # no notebook of the lesson here: nothing to compare
