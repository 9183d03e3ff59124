"""grader.checks, the checks lesson suites share: each rule they promise, on stand-in learners (no worker)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import pytest

from grader.checks import Carried, Numbers, Use, expect_choice, expect_value, only_fit, panel_answers, panel_slip
from grader.reveal import learner_view
from grader.testing import Call, Learner, LearnerRaised, Mismatch, MissingAnswer, describe_call


class Fake:
    """A learner whose every function is ``fn`` (as ``Learner.call`` and ``Learner.once`` behave)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.notes, self.calls = fn, dict[str, Any](), 0

    def call(self, name: str, *args: Any, **kwargs: Any) -> Call:
        self.calls += 1
        try:
            value = self.fn(*args, **kwargs)
        except Exception as err:
            raise LearnerRaised(f"{type(err).__name__}: {err}") from None
        return Call(text=describe_call(name, args, kwargs), value=value)

    def once(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self.notes:
            self.notes[key] = compute()
        return self.notes[key]


def learner(fn: Callable[..., Any]) -> Learner:
    return cast(Learner, Fake(fn))


NUMBERS = Numbers(
    spec={"area": lambda w, h: w * h, "tiles": lambda size, tile: int(size // tile)},
    params={"area": ("w", "h"), "tiles": ("size", "tile")},
    units={"area": "m2", "tiles": "tiles"},
    slips={"area": (("the perimeter (2 * (w + h)): an area multiplies", lambda w, h: 2 * (w + h)),)},
    probes={"area": ({"w": 3.7, "h": 11.3},), "tiles": ({"size": 1000, "tile": 7},)},
    advice={"area": "Multiply w by h.", "tiles": "size // tile."},
    counts={"tiles"},
)


def _fails(check: Callable[[], None]) -> str:
    with pytest.raises(Mismatch) as err:
        check()
    return learner_view(str(err.value))


def test_a_right_function_passes_with_one_more_call() -> None:
    fake = Fake(lambda w, h: w * h)
    NUMBERS.check(cast(Learner, fake), "area", w=2, h=3)
    assert fake.calls == 2


def test_a_constant_right_on_the_example_earns_nothing() -> None:
    said = _fails(lambda: NUMBERS.check(learner(lambda w, h: 6), "area", w=2, h=3))
    assert "area(3.7, 11.3) returned 6 too" in said and "whatever the inputs" in said


def test_an_argument_written_in_earns_nothing_where_the_example_hides_it() -> None:
    said = _fails(lambda: NUMBERS.check(learner(lambda w, h: w * 3), "area", w=2, h=3))
    assert "the right answer there, but area(3.7, 11.3) returned 11.1, which is not right" in said
    assert "`h` is ignored: every result is what the formula gives with `h` = 3, whatever `h` is" in said


def test_a_structural_slip_is_named_where_no_lesson_slip_fits() -> None:
    """Numbers tries grader.diagnose.structural after the lesson's slips: arguments swapped, a percentage for a
    fraction, an off-by-one at an exact fit (with ``unrounded``), an argument fixed to the page's value."""
    numbers = Numbers(
        spec={
            "cost": lambda price, n, discount: price * n * (1 - discount) + price,
            "boxes": lambda items, per: -(-items // per),
        },
        params={"cost": ("price", "n", "discount"), "boxes": ("items", "per")},
        units={"cost": "", "boxes": "boxes"},
        slips={},
        probes={
            "cost": ({"price": 3.7, "n": 11, "discount": 0.15},),
            "boxes": ({"items": 96, "per": 8}, {"items": 95, "per": 8}),
        },
        advice={"cost": "Check it.", "boxes": "Round up."},
        counts={"boxes"},
        page={"cost": ({"price": 2.5, "n": 4, "discount": 0.1},)},
        unrounded={"boxes": lambda items, per: items / per},
    )
    check = numbers.check
    said = _fails(
        lambda: check(
            learner(lambda price, n, discount: n * price * (1 - discount) + n), "cost", price=2, n=3, discount=0.2
        )
    )
    assert "`price` and `n` are swapped" in said
    said = _fails(
        lambda: check(
            learner(lambda price, n, discount: price * n * (1 - discount / 100) + price),
            "cost",
            price=2,
            n=3,
            discount=0.2,
        )
    )
    assert "`discount` is divided by 100, as if it were a percentage" in said
    said = _fails(
        lambda: check(learner(lambda price, n, discount: price * n * 0.9 + price), "cost", price=2, n=3, discount=0.2)
    )
    assert "`discount` is ignored" in said and "`discount` = 0.1" in said
    said = _fails(lambda: check(learner(lambda items, per: (items - 1) // per), "boxes", items=100, per=8))
    assert "ceil - 1" in said


def test_a_slip_is_named_when_the_probe_shows_it_too() -> None:
    said = _fails(lambda: NUMBERS.check(learner(lambda w, h: 2 * (w + h)), "area", w=2, h=3))
    assert "That is the perimeter" in said


def test_a_right_probe_is_not_cited_as_evidence_of_a_slip() -> None:
    said = _fails(lambda: NUMBERS.check(learner(lambda w, h: w * h if w > 3 else 99.0), "area", w=2, h=3))
    assert "which is right, so the slip shows only on some inputs" in said


def test_a_whole_float_count_is_refused_and_shown_as_a_float() -> None:
    said = _fails(lambda: NUMBERS.check(learner(lambda size, tile: size // tile * 1.0), "tiles", size=100, tile=8))
    assert "returned 12.0: the right count, but a float" in said
    NUMBERS.check(learner(lambda size, tile: size // tile), "tiles", size=100, tile=8)


def test_a_keyword_call_that_fails_says_to_keep_the_names() -> None:
    with pytest.raises(LearnerRaised, match=r"keep those names"):
        NUMBERS.check(learner(lambda width, h: width * h), "area", keywords=True, w=2, h=3)


def test_a_letter_gets_its_own_explanation_only_for_the_solution_it_was_written_for() -> None:
    why_not = ("B", {"A": "A is the mean."})
    assert "A is the mean." in _fails(lambda: expect_choice("q", "a", "B", "general", why_not))
    assert "general" in _fails(lambda: expect_choice("q", "a", "C", "general", why_not))
    assert "not one of A, B, C or D" in _fails(lambda: expect_choice("q", "E", "B", "general"))
    said = _fails(lambda: expect_choice("q", 2, "B", "general"))
    assert "an int" in said and "right letter" not in said
    expect_choice("q", " b ", "B", "general")


def test_a_by_hand_slip_is_named_only_when_it_is_the_one_close_enough() -> None:
    known = [("the mean", 10.0), ("the median", 20.0)]
    said = _fails(lambda: expect_value("x", 10.01, 15.0, meaning="m", known=known, rel=1e-6, advice="A."))
    assert "That is the mean." in said and "15" not in said
    said = _fails(lambda: expect_value("x", 12.0, 15.0, meaning="m", known=known, rel=1e-6, advice="A."))
    assert "I can't tell which slip gives this number." in said
    expect_value("x", 15.0, 15.0, meaning="m", known=known, rel=1e-6, advice="A.")


def test_a_slip_that_gives_the_right_value_on_these_numbers_is_never_named() -> None:
    """A known slip that cannot apply to this learner (a model whose query heads are its KV heads, say: the slip
    gives the right answer) is not named for a near miss of the right answer (issue 33, class 4)."""
    known = [("what the query heads give", 15.0), ("the median", 20.0)]
    said = _fails(lambda: expect_value("x", 15.01, 15.0, meaning="m", known=known, rel=1e-6, advice="A."))
    assert "query heads" not in said and "close" in said, said


def test_a_panel_runs_once_per_notebook_and_names_only_a_unique_fit() -> None:
    fake = Fake(lambda x: x + 1)
    calls = [(1,), (2,), (3,)]
    answers = panel_answers(cast(Learner, fake), "f", calls)
    assert answers == (2, 3, 4) and panel_answers(cast(Learner, fake), "f", calls) == answers and fake.calls == 3
    rules = [("plus one", (2, 3, 4)), ("double", (2, 4, 6))]
    assert only_fit(answers, rules, lambda a, r: a == r) == "plus one"
    assert only_fit(answers, [*rules, ("again", (2, 3, 4))], lambda a, r: a == r) == ""
    assert panel_answers(learner(lambda x: 1 / 0), "g", calls) is None


class Answers:
    """A learner's by-hand answers (as ``Learner.value`` and ``Learner.carried`` behave)."""

    def __init__(self, **values: Any) -> None:
        self.values, self.carried = values, set[str]()

    def value(self, name: str) -> Any:
        if name not in self.values:
            raise MissingAnswer(f"no {name}")
        return self.values[name]


#: A two-step chain: gb = 26 (right), ms = gb / 3.35 (right 7.76...), checked to 2 decimals.
GB, TB_PER_S = 26.0, 3.35
MS = GB / TB_PER_S


def _ms(answers: Answers, ms: Any, silent: bool = False) -> None:
    gb = Use.of(cast(Learner, answers), "gb_per_step", GB)
    carried = Carried((gb,), lambda gb: gb / TB_PER_S, None if silent else cast(Learner, answers))
    known = [("at 1 TB/s", GB)]
    expect_value(
        "ms_per_token", ms, MS, meaning="ms", known=known, rel=1e-6, abs_tol=0.005, advice="B.", carried=carried
    )


def test_an_answer_worked_right_from_a_wrong_earlier_one_is_credited_and_noted() -> None:
    answers = Answers(gb_per_step=52.0)  # 2 bytes per parameter
    _ms(answers, 52.0 / TB_PER_S)
    assert answers.carried == {"gb_per_step"}
    _ms(answers, round(52.0 / TB_PER_S, 2))  # within the answer's own tolerance of the carried value
    silent = Answers(gb_per_step=52.0)
    _ms(silent, 52.0 / TB_PER_S, silent=True)
    assert silent.carried == set()
    _ms(Answers(gb_per_step=GB), MS)  # right is right, and nothing is noted
    right = Answers(gb_per_step=GB)
    _ms(right, MS)
    assert right.carried == set()


def test_a_wrong_answer_on_its_own_earlier_ones_keeps_its_named_slip() -> None:
    answers = Answers(gb_per_step=52.0)
    said = _fails(lambda: _ms(answers, GB))  # worked at 1 TB/s from the right GB, not from its own 52
    assert "That is at 1 TB/s." in said and "does not follow from your own `gb_per_step` either" in said
    assert f"{MS:.6g}" not in said and answers.carried == set()
    # with the earlier answer right there is nothing to carry: no sentence about it
    assert "follow" not in _fails(lambda: _ms(Answers(gb_per_step=GB), 52.0 / TB_PER_S))


@pytest.mark.parametrize("gb", [0, 0.0, math.inf, math.nan, True, "52", None, [52.0]])
def test_a_carried_value_that_is_no_finite_non_zero_number_earns_nothing(gb: Any) -> None:
    def carried_ms() -> Any:
        try:
            return gb / TB_PER_S
        except TypeError:
            return gb

    answers = Answers(gb_per_step=gb)
    said = _fails(lambda: _ms(answers, carried_ms()))
    assert answers.carried == set() and "follow" not in said


def test_a_missing_earlier_answer_is_read_as_nothing_to_carry() -> None:
    assert Use.of(cast(Learner, Answers()), "gb_per_step", GB).value is None
    _fails(lambda: _ms(Answers(), 52.0 / TB_PER_S))


def test_a_carried_value_that_is_the_right_one_leaves_only_the_right_answer_right() -> None:
    """An earlier slip that does not change this answer carries nothing: the answer must be right."""
    assert not Use("ms_per_token", 7.76, MS, abs_tol=0.005).wrong  # right to its 2 decimals
    off = Use("x", 2.0, 1.0)
    carried = Carried((off,), lambda x: 5.0)  # the formula ignores x: the carried value is the right one
    said = _fails(lambda: expect_value("y", 6.0, 5.0, meaning="m", known=(), rel=1e-6, carried=carried))
    assert "follow" not in said
    expect_value("y", 5.0, 5.0, meaning="m", known=(), rel=1e-6, carried=carried)


def test_the_tolerance_is_absolute_when_given_and_a_rounding_is_named_in_every_lesson() -> None:
    """No lesson opts in to rounding: every by-hand check names it, with what the question allows."""
    expect_value("t", 257.7, 257.69, meaning="m", known=(), rel=1e-6, abs_tol=0.05)
    said = _fails(lambda: expect_value("t", 258, 257.69, meaning="m", known=(), rel=1e-6, abs_tol=0.05))
    assert "rounded to a whole number" in said and "at least 1 decimal place" in said
    assert "keep the full value" in _fails(lambda: expect_value("t", 258, 257.69, meaning="m", known=(), rel=1e-6))


def test_an_earlier_answer_right_on_another_learners_numbers_carries_nothing() -> None:
    """A classmate's Part 1 handed in whole: their GB is a slip of nobody's, and the ms worked from it (the two
    share an accelerator) must earn nothing, with no sentence saying it follows."""
    others = (9.0, 18.0)  # gb_per_step's right value on the lesson's other sets of numbers

    def ms(answers: Answers, value: float) -> None:
        gb = Use.of(cast(Learner, answers), "gb_per_step", GB, others=others)
        carried = Carried((gb,), lambda gb: gb / TB_PER_S, cast(Learner, answers))
        expect_value("ms_per_token", value, MS, meaning="ms", known=(), rel=1e-6, abs_tol=0.005, carried=carried)

    copied = Answers(gb_per_step=18.0)
    said = _fails(lambda: ms(copied, 18.0 / TB_PER_S))
    assert copied.carried == set() and "follow" not in said
    slipped = Answers(gb_per_step=52.0)  # a slip (2 bytes per parameter) is no other set's answer: carried
    ms(slipped, 52.0 / TB_PER_S)
    assert slipped.carried == {"gb_per_step"}
    assert not Use("gb_per_step", GB, GB, others=(GB,)).copied  # right on both is right, not copied


def test_an_earlier_answer_a_known_slip_gives_carries_even_when_right_on_another_learners_numbers() -> None:
    """13e9 parameters in FP8 at 2 bytes per parameter are 26 GB, the right answer of a 26e9 FP8 learner: a known
    slip on the learner's own numbers gives it, so it is that slip (it carries), not a copy; an answer right on
    another set that none of the learner's known slips gives is still a copy and carries nothing."""
    gb, ms, others = 13.0, 13.0 / TB_PER_S, (26.0, 9.0, 6.5)  # 26 is another learner's right gb_per_step
    known = [("what 2 bytes per parameter gives", 26.0), ("what GiB give", 12.1)]

    def carried_ms(answers: Answers, value: float, slips: Any = known) -> None:
        use = Use.of(cast(Learner, answers), "gb_per_step", gb, others=others, known=slips)
        carried = Carried((use,), lambda gb: gb / TB_PER_S, cast(Learner, answers))
        expect_value("ms_per_token", value, ms, meaning="ms", known=(), rel=1e-6, abs_tol=0.005, carried=carried)

    slipped = Answers(gb_per_step=26.0)
    carried_ms(slipped, round(26.0 / TB_PER_S, 2))
    assert slipped.carried == {"gb_per_step"}
    assert Use("gb_per_step", 26.0, gb, others=others, known=known).slipped
    assert not Use("gb_per_step", 26.0, gb, others=others, known=known).copied
    assert Use("gb_per_step", 26.0, gb, others=others).copied  # without its slips, the match is all there is
    copied = Answers(gb_per_step=9.0)  # another learner's right answer, and no slip of this learner's
    said = _fails(lambda: carried_ms(copied, 9.0 / TB_PER_S))
    assert copied.carried == set() and "follow" not in said
    assert not Use("gb_per_step", gb, gb, known=[("x", gb)]).slipped  # a right answer is no slip


def test_a_wrong_answer_a_known_slip_gives_is_marked_as_one_for_the_copy_flag() -> None:
    """expect_value raises KnownSlip when one of its known slips gives the answer (the report never calls such an
    answer another learner's), a plain Mismatch otherwise, even when a generic slip (a unit factor) names it."""
    from grader.testing import KnownSlip

    known = [("what 2 bytes per parameter gives", 26.0)]
    with pytest.raises(KnownSlip):
        expect_value("gb_per_step", 26.0, 13.0, meaning="GB", known=known, rel=1e-6)
    for value in (13e9, 9.0, "26"):
        with pytest.raises(Mismatch) as err:
            expect_value("gb_per_step", value, 13.0, meaning="GB", known=known, rel=1e-6, unit="GB")
        assert not isinstance(err.value, KnownSlip), value


def test_explaining_names_close_slips_together_and_a_count_only_exactly() -> None:
    """Two slips within 0.2% of the answer are one entry naming both (passed on as two, neither would be named);
    a whole count is explained only by a slip giving exactly it, a count not whole only by a slip not whole."""
    from grader.checks import explaining

    known = [("weights at 2 bytes", 7.4357), ("the worked example's step", 7.43), ("caches left out", 3.06)]
    ((both, value),) = explaining(known, 7.433)
    assert value == 7.433 and both.startswith("one of 2 slips") and "2 bytes" in both and "worked example" in both
    assert explaining(known, 5.0) == ()
    assert explaining(known, "7.43") == known  # no number: every slip, for expect_value's own wording
    counts = [("rounded up", 1342), ("not rounded down", 1341.6), ("query heads", 335)]
    assert explaining(counts, 1340, count=True) == ()  # 0.15% off "rounded up", but one sequence off
    assert explaining(counts, 1342, count=True) == (("rounded up", 1342.0),)
    assert explaining(counts, 1341.6, count=True) == (("not rounded down", 1341.6),)


def test_three_figures_accepts_an_answer_rounded_to_three_significant_figures() -> None:
    from grader.checks import three_figures, within

    for right in (149_536.0, 122_070.3, 7.4357, 0.0010049, 998.7):
        rounded = float(f"{right:.3g}")
        assert within(rounded, right, three_figures(right, 2e-3)), right
    assert three_figures(265_067.0, 2e-3) == 2e-3  # never tighter than the question's own
    assert not within(150_000.0, 149_536.0, 2e-3)  # the fixed 0.2% alone would refuse it


def test_an_earlier_answer_no_set_of_numbers_could_give_carries_nothing() -> None:
    """Carried credit only from an earlier answer of the kind the lesson's numbers give: its sign, a whole number
    where every right value is one (an ``int``), within the span of their magnitudes; and never a carried value of
    the other sign than the right answer (a negative count). Slips of the usual kind still carry."""
    others = (9.0, 18.0)
    for given in (-52.0, -1e-300, 0.0, 1e-300, 1e300):
        assert not Use("gb", given, GB, others=others).plausible, given
    assert Use("gb", 52.0, GB, others=others).plausible and Use("gb", GB * 1e9, GB).plausible  # a unit slip
    assert not Use("bytes", 1.5, 131_072, others=(65_536, 262_144)).plausible  # counted in whole bytes
    assert Use("bytes", 1, 131_072, others=(65_536,)).plausible and Use("x", 1.5, 131_072.0).plausible
    answers = Answers(gb_per_step=-1e-300)
    said = _fails(lambda: _ms(answers, -1e-300 / TB_PER_S))
    assert answers.carried == set() and "follow" not in said
    # positive earlier answers whose formula gives a number of the other sign: no credit
    below = Carried((Use("gb", 20.0, GB),), lambda gb: gb - 100)
    _fails(lambda: expect_value("left", -80.0, GB - 100 + 200, meaning="m", known=(), rel=1e-6, carried=below))


def test_a_numbers_free_part1_earns_no_carried_count_on_any_learners_numbers() -> None:
    """issue 29, item 7: kv_cache ``token_bytes = 1``, ``budget_gb = -1e-300``, ``sequences_fit = -1`` earned
    sequences_fit's points on every learner's numbers (floor of a tiny negative is -1)."""
    import importlib.util
    from pathlib import Path

    from grader.lessons import load_lesson
    from grader.params import every_params

    root = Path(__file__).resolve().parent.parent / "exercises"
    spec = importlib.util.spec_from_file_location("kv_values", root / "kv_cache" / "suites" / "test_values.py")
    assert spec is not None and spec.loader is not None
    values = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(values)
    every = [dict(p) for p in every_params(load_lesson("kv_cache", root))]
    for numbers in every:
        part1 = values.Part1.of(numbers)
        others = [values.Part1.of(p) for p in every if p != numbers]
        for answer in ({"token_bytes": 1, "budget_gb": -1e-300}, {"token_bytes": -1, "budget_gb": 1.0}):
            learner = Answers(**answer, sequences_fit=-1)
            carried = part1.carried("sequences_fit", cast(Learner, learner), others)
            assert carried.value() is None or carried.value() > 0, (numbers, answer)
            right = part1.sequences_fit
            _fails(
                lambda c=carried, r=right: expect_value(
                    "sequences_fit", -1, r, meaning="m", known=(), rel=1e-12, carried=c
                )
            )
            assert learner.carried == set()


def test_a_panel_names_a_structural_slip_from_every_answer_on_it_once_per_notebook() -> None:
    def fits(room: int, size: int, spare: int) -> int:
        return max(0, (room - spare) // size)

    params = ("room", "size", "spare")
    calls = [(100, 7, 3), (50, 3, 20), (64, 8, 0)]
    fake = Fake(lambda room, size, spare: max(0, (room - 10) // size))  # the page's spare of 10 written in
    first = [({"room": 30, "size": 4, "spare": 2}, 5)]
    said = panel_slip(cast(Learner, fake), "fits", fits, params, calls, first, [{"room": 90, "size": 8, "spare": 10}])
    assert "`spare` is ignored" in said and "`spare` = 10" in said
    assert fake.calls == 3
    panel_slip(cast(Learner, fake), "fits", fits, params, calls, first)
    assert fake.calls == 3  # the panel ran once
    right = Fake(fits)
    assert panel_slip(cast(Learner, right), "fits", fits, params, calls, [(first[0][0], 7)]) == ""


def test_a_float_that_is_not_whole_never_reads_as_a_whole_number() -> None:
    """kv_cache's max_tokens returning 560913.34 was told "returned 560913, which is not right (expected 560913)":
    a float that is not a whole number is shown with a decimal, float noise is not spelled out (issue 33)."""
    from grader.testing import number

    assert number(560913.3358) == "560913.3"
    assert number(-1389.998) == "-1389.998"
    assert number(762.939) == "762.939" and number(100.0) == "100" and number(71.4) == "71.4"
    assert number(2.0000000000000002e-5) == "2e-5" and number(100000000.00001) == "1e8"


def test_a_count_right_at_an_exact_fit_is_explained_from_every_probe() -> None:
    """A count right where the quotient is whole (ceil and round give it too) and wrong on its first probe, where
    ceil and round agree again: the other probes tell them apart, so the slip is named (kv_cache's max_sequences,
    issue 33: the blind TA's round() and ceil() were told "I can't tell" there)."""
    numbers = Numbers(
        spec={"fits": lambda size, each: size // each},
        params={"fits": ("size", "each")},
        units={"fits": "items"},
        slips={
            "fits": (
                ("rounded to the nearest whole number", lambda size, each: round(size / each)),
                ("rounded up", lambda size, each: math.ceil(size / each)),
            )
        },
        probes={"fits": ({"size": 999, "each": 10}, {"size": 1001, "each": 10})},  # 99.9 then 100.1
        advice={"fits": "size // each."},
        counts={"fits"},
    )
    for rule, named in (
        (lambda size, each: round(size / each), "nearest"),
        (lambda size, each: math.ceil(size / each), "rounded up"),
    ):
        said = _fails(lambda rule=rule: numbers.check(learner(rule), "fits", size=80, each=8))
        assert "the right answer there, but" in said and named in said, said
