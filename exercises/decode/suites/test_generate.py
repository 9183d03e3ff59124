"""generate and call_order_is_sequential: one token per step, each predicted from the whole sequence so far.

next_token is a recording function that stays in the grader: its record of the sequences it was called with
cannot be changed by the notebook's code. It answers with a deterministic function of the whole sequence and
its order, so a sequence passed in the wrong state gives the wrong tokens.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import NO_SHRINK, Mismatch, question, show


VOCAB = 50_000
TOKENS = st.integers(0, VOCAB - 1)
GENERATE_PARAMS = ("next_token", "prompt", "n")


# -- generate ----------------------------------------------------------------------------------------------------

@question("generate")
def test_generate_worked_example(learner, decode):
    prompt, n = [101, 7, 2048], 5
    rec = decode.NextToken()
    got = learner.call("generate", rec, list(prompt), n)
    decode.expect_generated(got, prompt, n, rec)


@question("generate", weight=2)
@settings(max_examples=8, phases=NO_SHRINK)
@given(prompt=st.lists(TOKENS, min_size=1, max_size=6), n=st.integers(1, 10))
def test_generate_generated(learner, decode, prompt, n):
    rec = decode.NextToken()
    got = learner.call("generate", rec, list(prompt), n)
    decode.expect_generated(got, prompt, n, rec)


@question("generate")
def test_generate_zero_new_tokens(learner, decode):
    """n = 0: the prompt comes back as it was, and next_token is never called."""
    prompt = [17, 4, 31999]
    rec = decode.NextToken()
    got = learner.call("generate", rec, list(prompt), 0)
    decode.expect_generated(got, prompt, 0, rec)


@question("generate")
def test_generate_empty_prompt(learner, decode):
    """An empty prompt: the first call gets [], then the sequence grows from the generated tokens alone."""
    rec = decode.NextToken()
    got = learner.call("generate", rec, [], 4)
    decode.expect_generated(got, [], 4, rec)


@question("generate")
def test_generate_keywords(learner, decode):
    prompt, n = [9, 8, 7, 6], 3
    rec = decode.NextToken()
    got = decode.call_kw(learner, "generate", GENERATE_PARAMS, n=n, prompt=list(prompt), next_token=rec)
    decode.expect_generated(got, prompt, n, rec)


# -- call_order_is_sequential ---------------------------------------------------------------------------------------

def _check_verdict(got, expected: bool, stand_in, prompt, n, decode) -> None:
    """The learner's verdict must be exactly True/False; explain using the lengths the stand-in passed."""
    value = got.value
    if value is expected:
        return
    want = decode.sequential_lengths(len(prompt), n)
    if not isinstance(value, bool):
        raise Mismatch(
            f"{got.text} returned {show(value)} (a {type(value).__name__}); expected {expected}: return the "
            "comparison's result, True or False."
        )
    if n and not stand_in.lengths:
        raise Mismatch(
            f"{got.text} returned {value}; expected {expected}. It never called generate: run the notebook's "
            "generate(wrapper, prompt, n) with a wrapper around next_token that records len(sequence) on each call."
        )
    if expected:
        raise Mismatch(
            f"{got.text} returned False with a correct generate; expected True. next_token was called with sequence "
            f"lengths {show(stand_in.lengths)}, which is exactly the sequential order "
            f"{show(want)} = range(len(prompt), len(prompt) + n). Check what your wrapper records and what you "
            "compare it with."
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


@question("call_order_is_sequential")
def test_order_true_for_correct_generate(learner, decode, reference):
    """The notebook's example: prompt [7, 8], 3 tokens, lengths 2, 3, 4."""
    prompt, n = [7, 8], 3
    stand_in = _correct(decode, reference)
    got = _run(learner, decode, stand_in, prompt, n)
    _check_verdict(got, True, stand_in, prompt, n, decode)


@question("call_order_is_sequential")
def test_order_true_edge_cases(learner, decode, reference):
    """n = 0 (no calls: the empty list is the expected order) and an empty prompt (lengths 0, 1, 2)."""
    for prompt, n in (([12, 34], 0), ([], 3)):
        stand_in = _correct(decode, reference)
        got = _run(learner, decode, stand_in, prompt, n)
        _check_verdict(got, True, stand_in, prompt, n, decode)


@question("call_order_is_sequential")
def test_order_keywords(learner, decode, reference):
    prompt, n = [42, 43, 44, 45, 46], 4
    stand_in = _correct(decode, reference)
    got = _run(learner, decode, stand_in, prompt, n, keywords=True)
    _check_verdict(got, True, stand_in, prompt, n, decode)


def _detects(learner, decode, reference, wrong_name, prompt, n):
    """True with the correct generate, then False with a wrong one (so a constant answer earns nothing here)."""
    stand_in = _correct(decode, reference)
    got = _run(learner, decode, stand_in, prompt, n)
    _check_verdict(got, True, stand_in, prompt, n, decode)
    wrong = decode.wrong_generates()[wrong_name]
    got = _run(learner, decode, wrong, prompt, n)
    _check_verdict(got, False, wrong, prompt, n, decode)


@question("call_order_is_sequential", weight=2)
def test_order_detects_prompt_only(learner, decode, reference):
    _detects(learner, decode, reference, "prompt_only", [7, 70, 700], 3)


@question("call_order_is_sequential", weight=2)
def test_order_detects_out_of_order(learner, decode, reference):
    _detects(learner, decode, reference, "out_of_order", [5, 6], 3)


@question("call_order_is_sequential", weight=2)
def test_order_detects_too_few_calls(learner, decode, reference):
    _detects(learner, decode, reference, "too_few", [8, 9, 10], 3)


@question("call_order_is_sequential", weight=2)
def test_order_detects_too_many_calls(learner, decode, reference):
    _detects(learner, decode, reference, "too_many", [11], 3)


@question("call_order_is_sequential", weight=2)
def test_order_detects_late_start(learner, decode, reference):
    _detects(learner, decode, reference, "starts_late", [1, 2, 3, 4], 3)
