"""generate and call_order_is_sequential: one token per step, each predicted from the whole sequence so far.

next_token is a recording function that stays in the grader: its record of the sequences it was called with
cannot be changed by the notebook's code. It answers with a deterministic function of the whole sequence and
its order, so a sequence passed in the wrong state gives the wrong tokens.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import (
    NO_SHRINK,
    LearnerHung,
    LearnerRaised,
    Mismatch,
    MissingAnswer,
    NotAttempted,
    question,
    show,
)


VOCAB = 50_000
TOKENS = st.integers(0, VOCAB - 1)
GENERATE_PARAMS = ("next_token", "prompt", "n")
# The names of the conftest's wrong generates (test modules cannot import it; keep in step with wrong_generates()).
WRONG_GENERATES = (
    "prompt_only", "out_of_order", "too_few", "too_many", "starts_late", "twice_per_token", "skips_a_length",
    "new_tokens_only", "last_token_only", "warm_up", "precomputed", "drops_last",
)


# -- generate ----------------------------------------------------------------------------------------------------

@question("generate")
def test_generate_worked_example(learner, decode):
    prompt, n = [101, 7, 2048], 5
    rec = decode.NextToken()
    got = learner.call("generate", rec, list(prompt), n)
    decode.expect_generated(got, prompt, n, rec)


@question("generate", weight=2)
@settings(max_examples=10, phases=NO_SHRINK)
@given(prompt=st.lists(TOKENS, max_size=6), n=st.integers(0, 6))
def test_generate_generated(learner, decode, prompt, n):
    rec = decode.NextToken()
    got = learner.call("generate", rec, list(prompt), n)
    decode.expect_generated(got, prompt, n, rec)


@question("generate")
def test_generate_zero_new_tokens(learner, decode):
    """n = 0: a copy of the prompt comes back (a new list, not the caller's), and next_token is never called."""
    prompt = [17, 4, 31999]
    rec = decode.NextToken()
    got = learner.call("generate", rec, list(prompt), 0)
    decode.expect_generated(got, prompt, 0, rec)


@question("generate")
def test_generate_one_new_token(learner, decode):
    """n = 1: one call on the prompt itself, one token appended."""
    for prompt in ([5], [3, 1, 4, 1, 5]):
        rec = decode.NextToken()
        got = learner.call("generate", rec, list(prompt), 1)
        decode.expect_generated(got, prompt, 1, rec)


@question("generate")
def test_generate_empty_prompt(learner, decode):
    """An empty prompt: the first call gets [], then the sequence grows from the generated tokens alone."""
    rec = decode.NextToken()
    got = learner.call("generate", rec, [], 4)
    decode.expect_generated(got, [], 4, rec)


@question("generate")
def test_generate_fresh_result_every_call(learner, decode):
    """Calls one after another: each result is a new list, whatever n, and no call changes what another saw."""
    for prompt, n in (([11, 12], 2), ([11, 12], 0), ([40], 3), ([], 0), ([40], 3)):
        rec = decode.NextToken()
        got = learner.call("generate", rec, list(prompt), n)
        decode.expect_generated(got, prompt, n, rec)


@question("generate")
def test_generate_keywords(learner, decode):
    prompt, n = [9, 8, 7, 6], 3
    rec = decode.NextToken()
    got = decode.call_kw(learner, "generate", GENERATE_PARAMS, n=n, prompt=list(prompt), next_token=rec)
    decode.expect_generated(got, prompt, n, rec)


# -- call_order_is_sequential ---------------------------------------------------------------------------------------

def _check_verdict(got, expected: bool, stand_in, prompt, n, decode, learner=None) -> None:
    """The learner's verdict must be exactly True/False; explain using the lengths the stand-in passed."""
    value = got.value
    want = decode.sequential_lengths(len(prompt), n)
    if value is expected:
        slip = decode.wrapper_slip(stand_in) if expected else ""
        if slip:
            raise Mismatch(f"{got.text} returned True, but {slip}")
        return
    if not isinstance(value, bool):
        raise Mismatch(
            f"{got.text} returned {show(value)} ({decode.kind(value)}); expected {expected}: return the "
            "comparison's result, True or False."
        )
    if n and not stand_in.lengths:
        raise Mismatch(
            f"{got.text} returned {value}; expected {expected}. It never called generate: run the notebook's "
            "generate(wrapper, prompt, n) with a wrapper around next_token that records len(sequence) on each call."
        )
    why = decode.wrong_check(learner) if learner is not None else ""
    if expected:
        raise Mismatch(
            f"{got.text} returned False with a correct generate; expected True. next_token was called with sequence "
            f"lengths {show(stand_in.lengths)}, which is exactly the sequential order "
            f"{show(want)} = range(len(prompt), len(prompt) + n). "
            + (why or "Check what your wrapper records and what you compare it with.")
        )
    if why:
        raise Mismatch(
            f"{got.text} returned True with a generate that {stand_in.description} (lengths {show(stand_in.lengths)}); "
            f"expected False. {why} Compare the whole recorded list with list(range(len(prompt), len(prompt) + n))."
        )
    raise Mismatch(
        f"{got.text} returned True with a generate that {stand_in.description}; expected False. The lengths it "
        f"passed were {show(stand_in.lengths)}; only exactly {show(want)}, in that order, are one token at a "
        "time. Compare the whole recorded list with list(range(len(prompt), len(prompt) + n)): order, count and "
        "starting length all matter."
    )


def _run(learner, decode, stand_in, prompt, n, *, keywords=False):
    rec = decode.NextToken()
    if keywords:
        return decode.call_kw(
            learner, "call_order_is_sequential", GENERATE_PARAMS, stand_ins={"generate": stand_in}, n=n, prompt=list(prompt), next_token=rec
        )
    return learner.call("call_order_is_sequential", rec, list(prompt), n, stand_ins={"generate": stand_in})


def _correct(decode, reference):
    return decode.GenerateStandIn(None, "is correct", base=reference.generate)


def _judge(learner, decode, stand_in, prompt, n):
    got = _run(learner, decode, stand_in, prompt, n)
    _check_verdict(got, decode.expected_verdict(stand_in, len(prompt), n), stand_in, prompt, n, decode, learner)


@question("call_order_is_sequential")
def test_order_true_for_correct_generate(learner, decode, reference):
    """The notebook's example: prompt [7, 8], 3 tokens, lengths 2, 3, 4."""
    _judge(learner, decode, _correct(decode, reference), [7, 8], 3)


@question("call_order_is_sequential")
def test_order_true_edge_cases(learner, decode, reference):
    """n = 0 (no calls: the empty list is the expected order), n = 1, and an empty prompt (lengths 0, 1, 2)."""
    for prompt, n in (([12, 34], 0), ([12, 34], 1), ([], 3), ([], 1), ([], 0)):
        _judge(learner, decode, _correct(decode, reference), prompt, n)


@question("call_order_is_sequential")
def test_order_true_for_another_correct_generate(learner, decode):
    """A correct generate written another way (a new list cut at every step): the verdict must be True too."""
    for prompt, n in (([3, 1, 4], 4), ([], 2)):
        _judge(learner, decode, decode.GenerateStandIn(decode.sequential_lengths, "is correct (a new list each step)"), prompt, n)


@question("call_order_is_sequential")
def test_order_small_n_is_still_checked(learner, decode, reference):
    """n = 0 and n = 1 with generates that call next_token wrongly even then: the verdict must still be False
    (after a True for a correct one, so that a constant False earns nothing here)."""
    _judge(learner, decode, _correct(decode, reference), [3, 4], 1)
    for wrong, prompt, n in (
        ("too_many", [3, 4], 0), ("twice_per_token", [3, 4], 1), ("starts_late", [9], 1), ("new_tokens_only", [5, 6, 7], 1),
    ):
        _judge(learner, decode, decode.wrong_generates()[wrong], prompt, n)


@question("call_order_is_sequential")
def test_order_with_your_own_generate(learner, decode, reference):
    """With the notebook's own generate, where that one is right: the spec lets generate hand next_token one list
    that grows at every step (the grader's stand-ins cannot: each call through the channel gets a fresh copy),
    so a wrapper must record len(sequence) when it is called, not keep the list and measure it afterwards."""
    prompt, n = [7, 8], 3
    rec = decode.NextToken()
    try:
        decode.expect_generated(learner.call("generate", rec, list(prompt), n), prompt, n, rec)
    except (Mismatch, LearnerRaised, LearnerHung, MissingAnswer, NotAttempted):
        # a wrong, missing or unwritten generate costs its own question's points only: the stand-ins' checks decide
        _judge(learner, decode, _correct(decode, reference), prompt, n)
        return
    try:
        got = learner.call("call_order_is_sequential", decode.NextToken(), list(prompt), n, own=("generate",))
    except (LearnerRaised, LearnerHung):  # no evidence about the list itself: the stand-ins' checks decide
        _judge(learner, decode, _correct(decode, reference), prompt, n)
        return
    if got.value is True:
        return
    _judge(learner, decode, _correct(decode, reference), prompt, n)  # wrong with a copying generate too: say why
    raise Mismatch(
        f"{got.text} returned {show(got.value)} with your own generate, which is right for these inputs; expected "
        "True. It returns True when generate hands the wrapper a new list at every call, so what differs is the "
        "list itself: a generate may pass the same list every time, growing it by one token per step. A wrapper "
        "that keeps the sequence and measures it after generate returns then sees its final length at every "
        "call. Record len(sequence) at the moment the wrapper is called."
    )


@question("call_order_is_sequential")
def test_order_keywords(learner, decode, reference):
    prompt, n = [42, 43, 44, 45, 46], 4
    stand_in = _correct(decode, reference)
    got = _run(learner, decode, stand_in, prompt, n, keywords=True)
    _check_verdict(got, True, stand_in, prompt, n, decode, learner)


@question("call_order_is_sequential", weight=3)
@settings(max_examples=4, phases=NO_SHRINK)
@given(
    prompt=st.lists(TOKENS, max_size=5),
    n=st.integers(0, 4),
    wrong=st.sampled_from(sorted(WRONG_GENERATES)),
)
def test_order_generated(learner, decode, reference, prompt, n, wrong):
    """For generated prompts and n: True with a correct generate, and the right verdict with a wrong one."""
    _judge(learner, decode, _correct(decode, reference), prompt, n)
    _judge(learner, decode, decode.wrong_generates()[wrong], prompt, n)


def _detects(learner, decode, reference, cases):
    """True with the correct generate (so a constant False earns nothing here), then False with each wrong one."""
    _, prompt, n = cases[0]
    _judge(learner, decode, _correct(decode, reference), prompt, n)
    for wrong_name, prompt, n in cases:
        wrong = decode.wrong_generates()[wrong_name]
        assert not decode.expected_verdict(wrong, len(prompt), n), (wrong_name, prompt, n)
        _judge(learner, decode, wrong, prompt, n)


@question("call_order_is_sequential", weight=2)
def test_order_detects_prompt_only(learner, decode, reference):
    _detects(learner, decode, reference, [("prompt_only", [7, 70, 700], 3)])


@question("call_order_is_sequential", weight=2)
def test_order_detects_out_of_order(learner, decode, reference):
    _detects(learner, decode, reference, [("out_of_order", [5, 6], 3)])


@question("call_order_is_sequential", weight=2)
def test_order_detects_wrong_counts(learner, decode, reference):
    """One call too few, one too many, a warm-up call before the loop, one call reused for every token."""
    _detects(learner, decode, reference, [
        ("too_few", [8, 9, 10], 3), ("too_many", [11], 3), ("warm_up", [4, 4], 2), ("precomputed", [2, 3], 4),
    ])


@question("call_order_is_sequential", weight=2)
def test_order_detects_twice_per_token(learner, decode, reference):
    _detects(learner, decode, reference, [("twice_per_token", [1, 2, 3], 3)])


@question("call_order_is_sequential", weight=2)
def test_order_detects_wrong_lengths(learner, decode, reference):
    """A late start, a skipped length, only the new tokens, only the last token, the last token dropped."""
    _detects(learner, decode, reference, [
        ("starts_late", [1, 2, 3, 4], 3), ("skips_a_length", [6, 6, 6], 4), ("new_tokens_only", [30, 31], 3),
        ("last_token_only", [8, 1, 8], 3), ("drops_last", [21, 22], 3),
    ])
