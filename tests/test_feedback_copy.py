"""Feedback pages are safe to send by default: ``grade batch`` writes the learner's view unless the teaching
assistant's full copy is asked for, and that copy says what it is at its top (issue 22, item 5)."""

from __future__ import annotations

from grader.batch import BatchOptions
from grader.batch.model import Row
from grader.config import DEFAULT_FEEDBACK
from grader.model import QuestionResult, Report
from grader.report.feedback import STAFF_COPY, feedback_html, feedback_markdown, feedback_view

ANSWER = "(The right letter is A.)"
PICK = QuestionResult("pick", 0.0, 1.0, "failed", ("Not the right choice.",), staff_feedback=("Not right.", ANSWER))
ROW = Row.of(
    "ada",
    Report(
        "squares",
        "ada.ipynb",
        0.0,
        1.0,
        (PICK,),
    ),
)


def test_the_default_feedback_is_the_learners_view_without_answers() -> None:
    assert BatchOptions().feedback == DEFAULT_FEEDBACK == "learner"
    view = feedback_view(ROW, None, DEFAULT_FEEDBACK)
    for page in (feedback_html(view), feedback_markdown(view)):
        assert ANSWER not in page and STAFF_COPY not in page and "Not the right choice." in page


def test_the_full_copy_says_at_its_top_that_it_is_the_teaching_assistants() -> None:
    view = feedback_view(ROW, None, "full")
    html, md = feedback_html(view), feedback_markdown(view)
    assert ANSWER in html and ANSWER in md
    body = html.split("<body>", 1)[1]
    assert body.lstrip().startswith('<p class="staff"><strong>Teaching assistant&#x27;s copy')
    assert md.startswith("> **Teaching assistant") and "do not send to learners" in md
    unread = Row("bob", "bob.ipynb", "unreadable", "empty file")
    assert STAFF_COPY in feedback_markdown(feedback_view(unread, None, "full"))
