"""The late policy (issue 22, item 8): a due date, extensions per learner and a penalty rule, applied to grades
and exports and shown to the instructor and the learner, with the raw score kept; never below 0, never on a
row that could not be graded; "submitted at" read from what each layout really carries."""

from __future__ import annotations

import os
import zipfile
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from grader.batch.archive import unpack_zip
from grader.batch.late import (
    LatePolicy,
    Penalty,
    apply_late,
    extension_notes,
    parse_time,
    read_extensions,
    remember,
    submitted_at,
)
from grader.batch.lms import Column, export_text, grades_csv
from grader.batch.model import BatchSummary, Identity, Row
from grader.batch.progress import format_summary
from grader.errors import UsageError
from grader.model import QuestionResult, Report, ReportStatus
from grader.report.feedback import feedback_markdown, feedback_view
from grader.report.summary import summary_html

DUE = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def graded(
    learner: str, score: float, submitted: datetime | None, status: ReportStatus = "graded", lms_id: str = ""
) -> Row:
    report = Report(
        "squares", f"{learner}.ipynb", score, 5.0, (QuestionResult("square", score, 5.0, "partial"),), status=status
    )
    row = Row.of(learner, report)
    identity = Identity("Blackboard", lms_id, lms_id) if lms_id else Identity()
    return Row(
        row.learner, row.path, row.status, "", report, False, identity, submitted.isoformat() if submitted else ""
    )


def test_per_day_penalty_counts_each_day_or_part_and_never_goes_below_zero() -> None:
    rows = [
        graded("ontime", 5, DUE - timedelta(minutes=1)),
        graded("hour", 5, DUE + timedelta(hours=1)),  # part of a day: one day
        graded("days", 5, DUE + timedelta(days=2, minutes=1)),  # three days
        graded("ages", 1, DUE + timedelta(days=30)),
    ]
    out = {r.learner: r for r in apply_late(rows, LatePolicy(DUE, (), Penalty.parse("per-day:10")))}
    assert {k: (r.lateness.days if r.lateness else None, r.final_score) for k, r in out.items()} == {
        "ontime": (0, 5),
        "hour": (1, 4.5),
        "days": (3, 3.5),
        "ages": (30, 0),
    }
    assert out["ages"].score == 1 and out["hour"].late and not out["ontime"].late  # the raw score is kept


def test_zero_rule_an_extension_by_lms_id_and_an_ungradable_row() -> None:
    late = DUE + timedelta(days=1)
    extended = graded("j_nunez", 4, late, lms_id="j_nunez")
    unreadable = graded("bob", 0, late, status="unreadable")
    policy = LatePolicy(DUE, (("j_nunez", DUE + timedelta(days=2)),), Penalty.parse("zero"))
    rows = {r.learner: r for r in apply_late([extended, unreadable, graded("amy", 4, late)], policy)}
    assert rows["j_nunez"].final_score == 4 and rows["j_nunez"].lateness and rows["j_nunez"].lateness.days == 0
    assert rows["amy"].final_score == 0 and rows["amy"].score == 4
    assert rows["bob"].lateness and rows["bob"].lateness.points_off == 0  # nothing to take from: still blank
    text = export_text(list(rows.values()), Column("Squares |1", 5), "csv")
    line = {r.split(",")[0]: r.split(",") for r in text.splitlines()[1:]}
    assert (line["amy"][4], line["amy"][9], line["amy"][10], line["amy"][11]) == ("0", "4", "1", "4")
    assert line["bob"][4] == ""  # ungradable: blank, no penalty


def test_canvas_late_flag_counts_one_day_and_no_flag_is_on_time() -> None:
    flagged = Row.of("hoppergrace_2", graded("x", 5, None).report, late=True)  # type: ignore[arg-type]
    unflagged = Row.of("lovelaceada_1", graded("y", 5, None).report)  # type: ignore[arg-type]
    rows = apply_late([flagged, unflagged], LatePolicy(DUE, (), Penalty.parse("per-day:20")))
    assert [(r.final_score, r.lateness.days if r.lateness else None) for r in rows] == [(4, 1), (5, 0)]
    assert rows[0].lateness and "counted as one day" in rows[0].lateness.how


def test_a_canvas_late_flag_is_never_penalised_past_the_learners_extension() -> None:
    """Canvas flags against the course's due date and gives no time: a flagged learner with a later extension
    is not penalised (the same learner through Blackboard, with a time, gets full marks), and the TA is told."""
    report = graded("x", 5, None).report
    assert report is not None
    flagged = replace(Row.of("hoppergrace_2", report, late=True), identity=Identity("Canvas", "2", "hoppergrace"))
    other = Row.of("lovelaceada_1", report, late=True)
    policy = LatePolicy(DUE, (("2", DUE + timedelta(days=3)),), Penalty.parse("per-day:10"))
    rows = apply_late([flagged, other], policy)
    assert [(r.final_score, r.lateness.days if r.lateness else None) for r in rows] == [(5, 0), (4.5, 1)]
    notes = extension_notes(policy, rows)
    assert any("hoppergrace_2" in n and "no time" in n and "SpeedGrader" in n for n in notes), notes


def test_no_due_date_no_policy_and_bad_rules_say_what_to_write() -> None:
    row = graded("a", 5, DUE + timedelta(days=3))
    assert apply_late([row], LatePolicy())[0].final_score == 5
    for bad in ("per-day", "per-day:0", "per-day:x", "half"):
        with pytest.raises(UsageError, match="per-day:"):
            Penalty.parse(bad)
    with pytest.raises(UsageError, match="2024-03-01T09:00"):
        parse_time("March 1st", "--due")
    assert parse_time("2024-03-01T09:00Z", "--due") == DUE
    assert parse_time("2024-03-01T09:00", "--due").tzinfo is not None  # local time, stated


def test_extensions_csv_and_the_policy_kept_for_the_next_run(tmp_path: Path) -> None:
    csv_file = tmp_path / "ext.csv"
    csv_file.write_text("learner,due\nj_nunez,2024-03-03T09:00+00:00\n4711,2024-03-02T09:00Z\n", encoding="utf-8")
    extensions = read_extensions(csv_file)
    assert [who for who, _ in extensions] == ["j_nunez", "4711"]
    policy = LatePolicy(DUE, extensions, Penalty.parse("per-day:10"))
    assert remember(tmp_path, policy) == policy and remember(tmp_path, None) == policy  # kept for reruns and export
    (tmp_path / "bad.csv").write_text("j_nunez\n", encoding="utf-8")
    with pytest.raises(UsageError, match="line 1"):
        read_extensions(tmp_path / "bad.csv")


def test_submitted_at_reads_what_each_layout_carries(tmp_path: Path) -> None:
    nb = tmp_path / "x.ipynb"
    nb.write_text("{}", encoding="utf-8")
    os.utime(nb, (DUE.timestamp(), DUE.timestamp()))
    assert submitted_at(nb, "lovelaceada_LATE_1_2_squares.ipynb", "Canvas") == ""  # a flag, no time
    blackboard = submitted_at(nb, "Squares_j_nunez_attempt_2024-03-01-09-31-00_squares.ipynb", "Blackboard")
    assert datetime.fromisoformat(blackboard).replace(tzinfo=None) == datetime(2024, 3, 1, 9, 31)
    assert datetime.fromisoformat(submitted_at(nb, "x.ipynb", "Moodle")) == DUE  # the file's time
    (tmp_path / "timestamp.txt").write_text("2024-03-01 10:00:00.000000 UTC", encoding="utf-8")
    assert datetime.fromisoformat(submitted_at(nb, "x.ipynb", "")) == DUE + timedelta(hours=1)  # nbgrader's
    assert datetime.fromisoformat(submitted_at(nb, "x.ipynb", "Moodle")) == DUE  # not trusted in an LMS download


def test_a_zip_member_keeps_its_time(tmp_path: Path) -> None:
    archive = tmp_path / "subs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(zipfile.ZipInfo("a.ipynb", date_time=(2024, 3, 1, 9, 30, 0)), "{}")
    unpacked = unpack_zip(archive, tmp_path / "out")
    stamp = datetime.fromtimestamp((unpacked.folder / "a.ipynb").stat().st_mtime)
    assert stamp == datetime(2024, 3, 1, 9, 30)


def test_late_is_shown_in_the_summary_and_on_the_learners_page() -> None:
    rows = apply_late([graded("amy", 4, DUE + timedelta(hours=30))], LatePolicy(DUE, (), Penalty.parse("per-day:10")))
    page = feedback_markdown(feedback_view(rows[0], None, "learner"))
    assert "Handed in 2 days late" in page and "took 1 of your 4 points" in page and "3 / 5" in page
    summary = summary_html(rows, {})
    assert "<h2>Late (1)</h2>" in summary and "per-day:10" in summary
    assert grades_csv(rows).splitlines()[1].split(",")[4] == "3"


def test_a_learner_listed_twice_in_extensions_is_refused_naming_the_lines(tmp_path: Path) -> None:
    """Never "the last row wins": an old row left in the sheet beside a new one is the TA's to resolve."""
    csv_file = tmp_path / "ext.csv"
    csv_file.write_text(
        "learner,due\nalice,2024-03-10T00:00Z\ncarol,2024-03-10T00:00Z\nAlice,2024-02-01T00:00Z\n", encoding="utf-8"
    )
    with pytest.raises(UsageError, match=r"more than once: alice \(lines 2, 4\); keep one row per learner"):
        read_extensions(csv_file)
    csv_file.write_text("learner,due\n,2024-03-10T00:00Z\n", encoding="utf-8")
    with pytest.raises(UsageError, match="line 2: the learner cell is empty"):
        read_extensions(csv_file)


def test_an_extension_for_nobody_or_before_the_due_date_is_said() -> None:
    """A typo'd name leaves the real learner penalised, and a date before --due makes a learner late: both said."""
    policy = LatePolicy(
        DUE,
        (("bobb", DUE + timedelta(days=9)), ("Carol", DUE - timedelta(days=29)), ("4711", DUE + timedelta(days=1))),
        Penalty.parse("per-day:10"),
    )
    rows = [graded("bob", 5, DUE + timedelta(days=2)), graded("carol", 5, DUE), graded("dan", 5, DUE, lms_id="4711")]
    nobody, early = extension_notes(policy, rows)
    assert "names bobb, who match no learner" in nobody and "correct the name" in nobody
    assert "Carol (2024-02-01T09:00+00:00)" in early and "earlier than --due" in early
    assert apply_late(rows, policy)[1].lateness.days == 29  # type: ignore[union-attr]  # as written, and said
    assert extension_notes(LatePolicy(DUE, (("bob", DUE),)), rows) == ()
    assert extension_notes(LatePolicy(), rows) == ()


def test_the_summary_mean_is_of_the_scores_after_the_late_penalty() -> None:
    """The first line's mean is the one grades.csv and the import hold, and says it is after the penalty."""
    rows = apply_late(
        [graded("amy", 5, DUE + timedelta(days=30)), graded("bo", 5, DUE)], LatePolicy(DUE, (), Penalty.parse("zero"))
    )
    line = format_summary(BatchSummary(Path("out"), "flat", tuple(rows), 2, 0, 1.0)).splitlines()[0]
    assert "mean score 50% of the maximum after the late penalty" in line
    plain = format_summary(BatchSummary(Path("out"), "flat", tuple(rows[1:]), 1, 0, 1.0)).splitlines()[0]
    assert plain.endswith("mean score 100% of the maximum.")
