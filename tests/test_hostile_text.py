"""Learner text at the exit, and the lesson a batch grades (issue 15, items 8, 9 and 13).

Items 8 and 9: a learner's words (an exception message, its class name, a returned value, a file name)
reach the TA's terminal, HTML and Markdown pages, a spreadsheet and JSON files. Whatever they hold (a lone
surrogate as a byte-level tokenizer demo prints, rich markup, terminal escape sequences, HTML, a formula),
every output is written, is valid UTF-8, shows the text as written and interprets none of it; no temporary
file is left; the honest learner in the same batch is unaffected. Through the real ``grade``,
``grade batch`` (run twice: the rerun renders everything again from the gradebook, including one written
before this fix) and ``grade gradescope``.

Item 13: a batch grades one lesson, chosen by the TA; a notebook whose metadata names another lesson is
reported as such, never graded on that lesson, never exported into the batch's nbgrader assignment.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from grader.files import write_atomic
from grader.integrations.gradescope import write_results
from grader.text import for_csv, for_json, for_markdown, plain
from tests.batch_support import LESSONS, SOLVED_SCORES, WRONG_SQUARE, ZERO_SCORES, write_nb
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED

ANSWER, SQUARE, SUM = SQUARES_SOLVED
# Source code, so these are escapes the learner's Python turns into the hostile characters at run time.
SURROGATE_CELL = [*SQUARES_SOLVED, 'raise ValueError("tokenizer demo: \\udcff")']
SURROGATE_CALL = [ANSWER, 'def square(x):\n    raise ValueError("bad byte \\udcff")', SUM]
SURROGATE_VALUE = ['answer_even = "\\udcff"', 'def square(x):\n    return "\\udcff"', SUM]
MARKUP = [
    ANSWER,
    (
        'def square(x):\n    raise ValueError("[/] [link=http://x]click[/link] '
        '[blink]blink[/blink] <script>alert(1)</script>")'
    ),
    SUM,
    'raise type("[/]<b>Err", (Exception,), {})("[bold red]=cmd|\' /C calc\'!A0")',
]
ESCAPES = [
    *SQUARES_SOLVED,
    'raise ValueError("\\x1b]8;;http://x\\x1b\\\\link\\x1b]8;;\\x1b\\\\ \\x1b[5mblink\\x1b[0m \\x1b[2J\\r\\u202eevil")',
]
HOSTILE = {
    "surrogate_cell": SURROGATE_CELL,
    "surrogate_call": SURROGATE_CALL,
    "surrogate_value": SURROGATE_VALUE,
    "markup": MARKUP,
    "escapes": ESCAPES,
}
#: What each hostile notebook earns: the text it raises or returns costs nothing more than the mistake.
HOSTILE_SCORES = {
    "surrogate_cell": SOLVED_SCORES,
    "surrogate_call": {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0},
    "surrogate_value": {"answer_even": 0.0, "square": 0.0, "sum_of_squares": 2.0},
    "markup": {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0},
    "escapes": SOLVED_SCORES,
}
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")
LIVE_HTML = re.compile(r"<\s*(script|img|b|blink|a)\b", re.IGNORECASE)
#: The one link the grader writes itself: summary.html's stuck learners, to their feedback page (a safe learner id).
OWN_LINK = re.compile(r'<a href="feedback/[A-Za-z0-9._-]+\.html">')


def grade_bytes(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """The real ``grade``, its output as bytes, printing as in a UTF-8 terminal locale (strict encoding)."""
    environ = {**os.environ, "PYTHONIOENCODING": "utf-8", "TERM": "xterm", "COLUMNS": "200", **env}
    environ.pop("NO_COLOR", None)
    return subprocess.run(["grade", *args], capture_output=True, cwd=REPO, timeout=300, env=environ)


def utf8(data: bytes) -> str:
    return data.decode("utf-8")  # strict: raises on anything that is not valid UTF-8


def every_string(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *every_string(v))]
    if isinstance(value, list):
        return [s for v in value for s in every_string(v)]
    return []


def assert_valid_json_text(value: Any) -> None:
    """Every string encodes as UTF-8 (a ``\\udcff`` escape in JSON decodes to a lone surrogate, which does not)."""
    for s in every_string(value):
        s.encode("utf-8")


def assert_no_terminal_control(text: str, styled: bool) -> None:
    """No hyperlink, blink, screen clearing or raw control character from the learner; rich's own colours only."""
    assert "\x1b]" not in text and "\x9b" not in text and "\r" not in text and "\u202e" not in text
    if not styled:
        assert "\x1b" not in text
        return
    for params in re.findall(r"\x1b\[([0-9;]*)([A-Za-z])", text):
        assert params[1] == "m", params  # only colour and weight (SGR): no cursor movement, no clearing
        codes = params[0].split(";")
        while codes[:2] in (["38", "5"], ["48", "5"]):
            codes = codes[3:]
        assert not {"5", "6"} & set(codes), params  # no blink


# -- the helpers ----------------------------------------------------------------------------------------------


def test_plain_text_is_valid_utf8_without_controls_and_bounded() -> None:
    assert plain("a\udcffb\ud83d\ude00") == "a\ufffdb\U0001f600"  # a lone surrogate replaced, a pair joined
    assert plain("\x1b[5mx\r\u202e") == "\\x1b[5mx\\x0d\\u202e" and plain("two\nlines\tok") == "two\nlines\tok"
    long = plain("x" * 100_000, limit=500)
    assert len(long) == 500 and "100000 characters" in long and plain(long, limit=500) == long


def test_markdown_csv_and_json_show_learner_text_as_written() -> None:
    assert for_markdown("- # [x](http://y) <b>*e*</b> `c` &amp; ~s~ | $m$") == (
        "\\- \\# \\[x\\](http://y) \\<b\\>\\*e\\*\\</b\\> `c` \\&amp; \\~s\\~ \\| \\$m\\$"
    )
    # Paired backticks stay a code span (shown literally by any viewer, so never escaped inside); an unpaired
    # one, or an empty pair, is escaped like the rest.
    assert for_markdown("`answer_sequential` is 'E'") == "`answer_sequential` is 'E'"
    assert for_markdown("`<img src=x>` and `[a](b)`") == "`<img src=x>` and `[a](b)`"
    assert for_markdown("a ` b") == "a \\` b" and for_markdown("x `` y") == "x \\`\\` y"
    assert for_markdown("1. item\nsecond line") == "1\\. item second line"
    assert [for_csv(c) for c in ("=1+1", "+1", "-2+3", "@SUM(A1)", "\tx", "ok = fine")] == [
        "'=1+1",
        "'+1",
        "'-2+3",
        "'@SUM(A1)",
        "'\tx",
        "ok = fine",
    ]
    assert for_json({"k\udcff": ["\udcff", 1, None, ("\x1b",)]}) == {"k\ufffd": ["\ufffd", 1, None, ("\\x1b",)]}


def test_an_atomic_write_that_fails_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        write_atomic(tmp_path / "grades.csv", "learner\n")
    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        write_results({"score": 0}, tmp_path)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []


# -- grade NOTEBOOK -------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(set(HOSTILE) - {"surrogate_value"}))  # a returned value is shown as its repr
def test_grade_prints_hostile_text_as_written(kind: str, tmp_path: Path) -> None:
    path = write_nb(tmp_path / f"{kind}.ipynb", HOSTILE[kind])
    for styled in (False, True):
        result = grade_bytes(str(path), *LESSONS, **({"FORCE_COLOR": "1"} if styled else {}))
        assert result.returncode == 0, result.stderr[-2000:]
        out = utf8(result.stdout)
        assert_no_terminal_control(out, styled)
        assert f"Total: {sum(HOSTILE_SCORES[kind].values()):g} / 5" in out
        if kind == "markup":  # the cell error's note, printed below the table
            assert "[/]<b>Err: [bold red]=cmd|" in out and "[link=http://x]" in out
        if kind == "escapes":
            assert "\\x1b]8;;http://x" in out and "\\x1b[5mblink" in out
    as_json = grade_bytes(str(path), *LESSONS, "--json")
    assert as_json.returncode == 0, as_json.stderr[-2000:]
    report = json.loads(utf8(as_json.stdout))
    assert_valid_json_text(report)
    assert {q["id"]: q["score"] for q in report["questions"]} == HOSTILE_SCORES[kind]
    if kind.startswith("surrogate_c"):
        assert "\ufffd" in json.dumps(report, ensure_ascii=False)


# -- grade batch ----------------------------------------------------------------------------------------------


def hostile_class(subs: Path) -> None:
    """The honest ada, every hostile notebook, and file names a learner chose (or an LMS mangled)."""
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    for kind, cells in HOSTILE.items():
        write_nb(subs / f"{kind}.ipynb", cells)
    (subs / "=cmd|' -C calc'!A0.ipynb").write_text("not a notebook")  # its reason starts with its name
    (subs / "<img src=x onerror=alert(1)>.ipynb").write_text("not a notebook")
    write_nb(subs / "-2+3.ipynb", SQUARES_SOLVED)  # a learner id that starts like a formula
    write_nb(subs / os.fsdecode(b"caf\xe9.ipynb"), SQUARES_SOLVED)  # a Latin-1 file name: not UTF-8


def assert_outputs_safe(out: Path, learners: set[str]) -> None:
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".csv", ".jsonl", ".html", ".md"):
            utf8(path.read_bytes())
    assert (
        {p.stem for p in (out / "feedback").glob("*.html")}
        == learners
        == {p.stem for p in (out / "feedback").glob("*.md")}
    )
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert {r[0].lstrip("'") for r in rows[1:]} == learners
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), row
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {line["learner"] for line in lines} == learners
    assert_valid_json_text(lines)
    pages = [out / "summary.html", *(out / "feedback").glob("*.html")]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        text = OWN_LINK.sub("", text)
        assert not LIVE_HTML.search(text), (page.name, LIVE_HTML.search(text))
        assert "\x1b" not in text
    for md in (out / "feedback").glob("*.md"):
        text = md.read_text(encoding="utf-8")
        text = re.sub(r"(?<!\\)`[^`\n]+`", "", text)  # code spans show their content literally: inert
        assert not re.search(r"(?<!\\)[<\[`]", text), md.name  # no tag, link or code that is not escaped


@pytest.mark.slow
def test_a_batch_with_hostile_text_writes_every_output_and_a_rerun_renders_them_again(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    hostile_class(subs)
    args = (str(subs), "--out", str(out), *LESSONS, "--jobs", "2", "--timeout", "20")
    first = grade_bytes("batch", *args)
    assert first.returncode == 0, first.stderr[-3000:]
    learners = {"ada", *HOSTILE, "cmd_-C_calc_A0", "img_src_x_onerror_alert_1", "2_3", "caf"}
    assert_outputs_safe(out, learners)
    results = {
        line["learner"]: line
        for line in map(json.loads, (out / "results.jsonl").read_text(encoding="utf-8").splitlines())
    }
    assert {q["id"]: q["score"] for q in results["ada"]["questions"]} == SOLVED_SCORES  # the honest learner, unaffected
    for kind, scores in HOSTILE_SCORES.items():
        assert {q["id"]: q["score"] for q in results[kind]["questions"]} == scores, kind
    assert results["caf"]["score"] == 5 and results["2_3"]["score"] == 5  # an id never starts with "-" (an option)
    ada_html = (out / "feedback" / "ada.html").read_text(encoding="utf-8")
    assert "All 2 checks passed." in ada_html and "\ufffd" not in ada_html
    markup_html = (out / "feedback" / "markup.html").read_text(encoding="utf-8")
    assert "[link=http://x]click[/link]" in markup_html and "&lt;script&gt;alert(1)&lt;/script&gt;" in markup_html
    assert "&lt;b&gt;Err" in markup_html
    assert "\\x1b]8;;http://x" in (out / "feedback" / "escapes.html").read_text(encoding="utf-8")
    assert "\\[link=http://x\\]" in (out / "feedback" / "markup.md").read_text(encoding="utf-8")
    assert "\ufffd" in (out / "feedback" / "surrogate_cell.md").read_text(encoding="utf-8")
    grades = {
        row["learner"]: row for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8")))
    }
    assert (
        grades["cmd_-C_calc_A0"]["reason"].startswith("'=cmd|") and "2_3" in grades
    )  # an id never starts with - (nor =, +, @)

    # A gradebook written before this fix holds the learner's text raw; every rerun renders it again.
    db = sqlite3.connect(out / "gradebook.sqlite")
    raw = json.dumps("[/] \udcff <script>x</script> \x1b[5m")[1:-1]
    with db:
        db.execute(
            "UPDATE gradings SET result = replace(result, 'All 2 checks passed.', ?) WHERE learner = 'markup'", (raw,)
        )
    db.close()
    second = grade_bytes("batch", *args)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "0 graded now, 10 unchanged and kept" in utf8(second.stdout)
    assert_outputs_safe(out, learners)
    markup_md = (out / "feedback" / "markup.md").read_text(encoding="utf-8")
    assert "\\[/\\] \ufffd \\<script\\>x\\</script\\> \\\\x1b\\[5m" in markup_md


# -- grade gradescope -----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["surrogate_call", "escapes"])
def test_gradescope_always_writes_results_json(kind: str, tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    write_nb(root / "submission" / f"{kind}.ipynb", HOSTILE[kind])
    result = grade_bytes("gradescope", "--root", str(root), *LESSONS, "--lesson", "squares")
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(p.name for p in (root / "results").iterdir()) == ["results.json"]
    results = json.loads(utf8((root / "results" / "results.json").read_bytes()))
    assert_valid_json_text(results)
    assert not [s for s in every_string(results) if CONTROL.search(s)]  # Gradescope shows them to the learner
    assert {t["name"].split(":")[0]: t["score"] for t in results["tests"]} == HOSTILE_SCORES[kind]
    assert_no_terminal_control(utf8(result.stdout), styled=False)


# -- item 13: the batch decides the lesson --------------------------------------------------------------------


@pytest.fixture
def two_lessons(tmp_path: Path) -> Path:
    """A course with the squares lesson and ``cubes``, a copy of it (so a squares answer gets 5/5 on cubes too)."""
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "cubes")
    toml = root / "cubes" / "lesson.toml"
    toml.write_text(toml.read_text().replace('id = "squares"', 'id = "cubes"'))
    return root


def mixed_lessons(folder: Path) -> None:
    write_nb(folder / "ada" / "ps1" / "squares.ipynb", SQUARES_SOLVED)
    write_nb(folder / "bob" / "ps1" / "squares.ipynb", WRONG_SQUARE)
    write_nb(folder / "mal" / "ps1" / "squares.ipynb", SQUARES_SOLVED, lesson="cubes")  # would earn 5/5 on cubes


def batch_rows(out: Path) -> dict[str, dict[str, Any]]:
    return {
        line["learner"]: line
        for line in map(json.loads, (out / "results.jsonl").read_text(encoding="utf-8").splitlines())
    }


@pytest.mark.slow
def test_a_batch_grades_the_lesson_the_ta_chose_and_reports_a_notebook_for_another(
    tmp_path: Path, two_lessons: Path
) -> None:
    course = tmp_path / "course"
    mixed_lessons(course / "submitted")
    out = tmp_path / "results"
    common = (str(course), "--lessons", str(two_lessons), "--assignment", "ps1", "--jobs", "1")
    unchosen = grade_bytes("batch", *common, "--out", str(out))
    assert (
        unchosen.returncode == 2 and "--lesson" in utf8(unchosen.stderr) and "cubes, squares" in utf8(unchosen.stderr)
    )
    assert not (out / "grades.csv").exists()

    chosen = grade_bytes("batch", *common, "--out", str(out), "--lesson", "squares")
    assert chosen.returncode == 0, chosen.stderr[-3000:]
    rows = batch_rows(out)
    assert {k: (v["status"], v["lesson"], v["score"]) for k, v in rows.items()} == {
        "ada": ("graded", "squares", 5.0),
        "bob": ("graded", "squares", 3.0),
        "mal": ("unreadable", "squares", 0.0),
    }
    assert {q["id"]: q["score"] for q in rows["mal"]["questions"]} == ZERO_SCORES
    assert "This notebook is for lesson 'cubes', not 'squares'" in rows["mal"]["errors"][-1]
    assert "for lesson 'cubes', not 'squares'" in html.unescape(
        (out / "feedback" / "mal.html").read_text(encoding="utf-8")
    )


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*not in session, add operation along")
def test_a_notebook_for_another_lesson_is_never_exported_into_the_assignment(tmp_path: Path, two_lessons: Path) -> None:
    pytest.importorskip("nbgrader")
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    mixed_lessons(course / "submitted")
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    result = grade_bytes(
        "batch",
        str(course),
        "--out",
        str(tmp_path / "results"),
        "--lessons",
        str(two_lessons),
        "--lesson",
        "squares",
        "--assignment",
        "ps1",
        "--nbgrader-db",
        url,
        "--jobs",
        "1",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with Gradebook(url) as gb:
        assert [a.name for a in gb.assignments] == ["ps1"]
        scores = {s.student.id: s.score for s in gb.find_assignment("ps1").submissions}
    # mal's notebook is another lesson's: never its score, and by default no grade at all (--ungradable blank)
    assert scores == {"ada": 5.0, "bob": 3.0}


def test_a_notebook_cannot_name_a_lesson_outside_the_lessons_folder(tmp_path: Path, two_lessons: Path) -> None:
    """``metadata.grader.lesson`` is a lesson id, never a path to a lesson (and hidden suites) of its own."""
    shutil.copytree(two_lessons / "squares", tmp_path / "elsewhere")
    path = write_nb(tmp_path / "nb.ipynb", SQUARES_SOLVED, lesson="../elsewhere")
    result = grade_bytes(str(path), "--lessons", str(two_lessons), "--json")
    assert result.returncode == 1 and "There is no lesson '../elsewhere'" in utf8(result.stderr)
