"""Arithmetic intensity (intensity_4bit, ridge_point), the two tokens/s definitions (answer_rate_definitions) and
speculative decoding (expected_tokens_per_pass).

Self-contained on purpose: it uses only the engine's fixtures (``learner``, ``reference``), :mod:`grader.testing`
and the shared checks of :mod:`grader.checks`, not the lesson's ``conftest.py``. Expected values are computed here from the lesson's
spec, never from the learner's code.
"""

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from grader.checks import expect_choice, expect_value
from grader.diagnose import constant
from grader.testing import NO_SHRINK, LearnerRaised, Mismatch, diagnose_number, magnitudes, question, show

REL = 1e-6


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _expect_close(got, expected, unit, mistakes=(), again=None):
    """Pass if the call returned ``expected`` within REL; else say what came back and name a known mistake.

    ``again`` (optional) makes one more call with other inputs, (Call, its expected value), once the first is
    wrong: the same number for different inputs is a hard-coded answer, whatever number it is."""
    number = _number(got.value)
    if number is not None and math.isclose(number, expected, rel_tol=REL, abs_tol=1e-300):
        return
    text = f"{got.text} returned {show(got.value)}; expected {expected:.6g} {unit} (within {REL:g} relative)."
    if again is not None:
        other, other_expected = again()
        hard_coded = constant([got.value, other.value], [expected, other_expected])
        if hard_coded:
            raise Mismatch(f"{text} {hard_coded}")
    why = diagnose_number(got.value, expected, dict(mistakes))  # the known mistakes first, then the generic slips
    raise Mismatch(f"{text} {why}" if why else text)


# -- intensity_4bit --------------------------------------------------------------------------------------------------

INTENSITY_KNOWN = [
    ("the intensity at 2 bytes per parameter (16-bit weights): the question is about 4-bit weights, half a byte "
     "each", 1.0),
    ("bytes per FLOP: the formula is upside down, and intensity is FLOPs per byte", 0.25),
    ("4 bits taken as 4 bytes: 4 bits is half a byte", 0.5),
    ("1 FLOP per parameter or 1 byte per parameter: a step does a multiply and an add per weight, and 4 bits is "
     "half a byte", 2.0),
]


@question("intensity_4bit")
def test_intensity_4bit(learner):
    expect_value(
        "intensity_4bit",
        learner.value("intensity_4bit"),
        4.0,
        meaning="the FLOPs per byte of weights read in one step",
        known=INTENSITY_KNOWN,
        rel=REL,
        advice="A step does about 2 FLOPs per parameter and reads each parameter's bytes once.",
    )


# -- ridge_point ---------------------------------------------------------------------------------------------------

RIDGE_MISTAKES = lambda peak, bw: [("bandwidth / peak_flops, bytes per FLOP", bw / peak), ("peak_flops x bandwidth", peak * bw)]  # noqa: E731


def _ridge_again(learner, peak, bandwidth):
    """ridge_point on other inputs (a different ratio), and what it should return."""
    return learner.call("ridge_point", peak * 1.37, bandwidth * 0.61), peak * 1.37 / (bandwidth * 0.61)


@question("ridge_point")
def test_ridge_point_worked_example(learner):
    """The H100 SXM of the text: 989 TFLOP/s of dense BF16 over 3.35 TB/s."""
    _expect_close(
        learner.call("ridge_point", 989e12, 3.35e12), 989e12 / 3.35e12, "FLOPs per byte", RIDGE_MISTAKES(989e12, 3.35e12),
        again=lambda: _ridge_again(learner, 989e12, 3.35e12),
    )


@question("ridge_point", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(peak=magnitudes(12, 16), bandwidth=magnitudes(10, 13))
def test_ridge_point_generated(learner, peak, bandwidth):
    _expect_close(
        learner.call("ridge_point", peak, bandwidth), peak / bandwidth, "FLOPs per byte", RIDGE_MISTAKES(peak, bandwidth),
        again=lambda: _ridge_again(learner, peak, bandwidth),
    )


@question("ridge_point")
def test_ridge_point_keywords(learner):
    peak, bandwidth = 312e12, 2.039e12
    got = learner.call("ridge_point", bandwidth=bandwidth, peak_flops=peak)
    _expect_close(got, peak / bandwidth, "FLOPs per byte", RIDGE_MISTAKES(peak, bandwidth))


# -- answer_rate_definitions -------------------------------------------------------------------------------------------

WHY_NOT = {
    "A": "Y divided the tokens by the whole request's time, including the wait for the first token: a valid "
    "measure of what the user saw, not a mistake.",
    "B": "1 / ITL is a valid measure too: the steady rate at which tokens arrive once decoding is under way.",
    "D": "n_out / TTFT divides all the tokens by the time to the first one only; neither dashboard measures that.",
}
#: The letter the explanations above were written for; used only while the solution still says so.
WRITTEN_FOR = "C"


@question("answer_rate_definitions")
def test_answer_rate_definitions(learner, reference):
    general = "Work out what each dashboard divided by what: are both sensible quantities with different definitions?"
    expect_choice(
        "answer_rate_definitions",
        learner.value("answer_rate_definitions"),
        reference.answer_rate_definitions,
        general,
        (WRITTEN_FOR, WHY_NOT),
        "".join(sorted({WRITTEN_FOR, *WHY_NOT})),
    )


# -- expected_tokens_per_pass --------------------------------------------------------------------------------------

def spec_tokens_per_pass(k, a):
    """1 + a + a**2 + ... + a**k: the accepted prefix of k drafts (each kept with probability a) plus one token."""
    return math.fsum(a**i for i in range(k + 1))


def pass_mistakes(k, a):
    return [
        ("(1 - a**k) / (1 - a), one power short: it leaves out the token the large model adds every pass,", spec_tokens_per_pass(k - 1, a) if k else 0.0),
        ("k * a + 1, which treats every draft as kept independently of the ones before it", k * a + 1),
        ("k * a, the drafts kept on average if each were independent, without the large model's token", k * a),
    ]


def _tokens_per_pass(learner, k, a):
    """Call expected_tokens_per_pass; a division by zero at a = 1 is the formula used without its special case."""
    try:
        return learner.call("expected_tokens_per_pass", k, a)
    except LearnerRaised as err:
        if a == 1 and "ZeroDivisionError" in str(err):
            raise Mismatch(
                f"{err}. With a = 1 the formula (1 - a**(k + 1)) / (1 - a) divides 0 by 0: the a == 1 case needs its "
                "own branch, before the formula, returning k + 1 (every draft kept, plus the large model's token)."
            ) from None
        raise


@question("expected_tokens_per_pass")
def test_tokens_per_pass_worked_example(learner):
    """k = 4 drafts accepted with probability 0.8: 3.3616 tokens per pass."""
    _expect_close(learner.call("expected_tokens_per_pass", 4, 0.8), 3.3616, "tokens", pass_mistakes(4, 0.8))


@question("expected_tokens_per_pass")
def test_tokens_per_pass_nothing_accepted(learner):
    """a = 0: every draft is rejected, and the pass still gives the large model's own token."""
    _expect_close(learner.call("expected_tokens_per_pass", 5, 0.0), 1.0, "tokens", pass_mistakes(5, 0.0))


def _at_one(learner, k, got):
    """The known mistakes at a = 1, where k is what the formula one power short gives and what an a == 1 branch
    returning k gives: the formula itself is called at a = 0.8, and the slip named is the one it shows there (only
    the branch when the formula is right, only the power when it is one short; neither said when it shows neither)."""
    if _number(got.value) != float(k):
        return pass_mistakes(k, 1.0)
    try:
        other = _number(learner.call("expected_tokens_per_pass", 3, 0.8).value)
    except LearnerRaised:
        other = None
    short = other is not None and math.isclose(other, spec_tokens_per_pass(2, 0.8), rel_tol=REL)
    if other is not None and math.isclose(other, spec_tokens_per_pass(3, 0.8), rel_tol=REL):
        return [(
            "an a == 1 branch returning k, without the large model's own token (your formula is right for a = 0.8: "
            "only the branch is off; with every draft kept a pass gives all k drafts plus that token),",
            float(k),
        )]
    return [m for m in pass_mistakes(k, 1.0) if short or "one power short" not in m[0]]


@question("expected_tokens_per_pass")
def test_tokens_per_pass_everything_accepted(learner):
    """a = 1: all k drafts kept plus one token, k + 1 (the formula would divide 0 by 0)."""
    got = _tokens_per_pass(learner, 3, 1.0)
    _expect_close(got, 4.0, "tokens", _at_one(learner, 3, got))


@question("expected_tokens_per_pass")
def test_tokens_per_pass_no_drafts(learner):
    """k = 0: no drafts, one token per pass: plain decoding."""
    _expect_close(learner.call("expected_tokens_per_pass", 0, 0.7), 1.0, "tokens", pass_mistakes(0, 0.7))


@question("expected_tokens_per_pass", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(k=st.integers(1, 16), a=st.floats(0.01, 0.99))
def test_tokens_per_pass_generated(learner, k, a):
    _expect_close(learner.call("expected_tokens_per_pass", k, a), spec_tokens_per_pass(k, a), "tokens", pass_mistakes(k, a))


#: 1 - 10**-e and 10**-e for e in 2 .. 9: the neighbourhoods of the special points a = 1 and a = 0, where a
#: shortcut with a wide tolerance (``abs(a - 1) < 0.01: return k + 1``) is wrong. Not closer than 1e-9: the
#: docstring's formula itself loses about 1e-16 / (1 - a) of relative precision there (1e-7 at most).
NEAR = st.floats(2, 9)


@question("expected_tokens_per_pass")
@settings(max_examples=8, phases=NO_SHRINK)
@given(k=st.integers(2, 16), e=NEAR)
@example(k=3, e=2.0)
@example(k=5, e=3.0)
@example(k=2, e=4.5)
def test_tokens_per_pass_near_one(learner, k, e):
    """a just below 1: every draft is almost always kept, but not always: the formula, not k + 1."""
    a = 1 - 10**-e
    _expect_close(learner.call("expected_tokens_per_pass", k, a), spec_tokens_per_pass(k, a), "tokens", _near_one(k, a))


@question("expected_tokens_per_pass")
@settings(max_examples=6, phases=NO_SHRINK)
@given(k=st.integers(2, 16), e=NEAR)
@example(k=4, e=2.0)
@example(k=8, e=3.0)
def test_tokens_per_pass_near_zero(learner, k, e):
    """a just above 0: drafts are almost never kept, but the pass gives a little more than one token."""
    a = 10**-e
    _expect_close(learner.call("expected_tokens_per_pass", k, a), spec_tokens_per_pass(k, a), "tokens", _near_zero(k, a))


@question("expected_tokens_per_pass")
def test_tokens_per_pass_no_drafts_any_a(learner):
    """k = 0 with a = 0, a near 0, a near 1 and a = 1: one token per pass, whatever a."""
    for a in (0.0, 1e-6, 0.5, 1 - 1e-6, 1.0):
        got = _tokens_per_pass(learner, 0, a)
        _expect_close(got, 1.0, "tokens", _at_one(learner, 0, got) if a == 1.0 else pass_mistakes(0, a))


def _near_one(k, a):
    return [*pass_mistakes(k, a), (
        "k + 1, the answer for a = 1 exactly: an a close to 1 is not 1 (compare with == 1, or keep the formula, which is "
        "precise enough until a is within about 1e-12 of 1),", float(k + 1))]


def _near_zero(k, a):
    return [*pass_mistakes(k, a), (
        "1, the answer for a = 0 exactly: an a close to 0 still keeps a draft now and then (special-case only a == 0, "
        "if at all),", 1.0)]
