"""Shared helpers for the hidden suites of the "A request, end to end" lesson.

Test modules reach these helpers through the ``rq`` fixture (a namespace of plain functions; ``request`` is
pytest's own fixture name). Everything here runs in the trusted process: expected values come from the
lesson's spec, never from the learner.

How a wrong answer is explained (issue 20): each function has a catalogue of the lesson's own slips (n_out gaps
instead of n_out - 1, an ITL taken as milliseconds, the mean for the median, an off-by-one rank, one stream's
rate for the fleet's...). A slip is named only when it is the only slip that gives the learner's result on the
failing input *and* it gives the learner's result on a second, different input too. Otherwise the feedback
falls back to a generic slip of :mod:`grader.diagnose` (a unit factor, a reciprocal, rounding) and, failing
that, says plainly that it cannot tell which slip it is.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from grader.checks import Carried, Use, call_with, either, lesson_fixture, rounded_too_far, within
from grader.diagnose import candidates, confirmed, explain, kind, number, structural_slip
from grader.testing import REL_TOL, Call, KnownSlip, LearnerRaised, Mismatch, Opaque, show, withheld

NOT_SURE = "I can't tell which slip this is;"


# -- the spec, computed independently of any notebook -------------------------------------------------------


def request_latency(ttft: float, itl: float, n_out: int) -> float:
    return ttft + (n_out - 1) * itl


def itl_from_timestamps(times: Sequence[float]) -> list[float]:
    return [times[k + 1] - times[k] for k in range(len(times) - 1)]


def output_rate(n_out: int, ttft: float, itl: float) -> float:
    return n_out / request_latency(ttft, itl, n_out)


def fleet_tokens_per_second(itls: Sequence[float]) -> float:
    return float(sum(1 / itl for itl in itls))


def linear(ordered: Sequence[float], h: float) -> float:
    """Linear interpolation at rank h (from 0) in a list, clamped to its ends."""
    n = len(ordered)
    h = min(max(h, 0.0), n - 1)
    i = int(math.floor(h))
    j = min(i + 1, n - 1)
    return float(ordered[i] + (h - i) * (ordered[j] - ordered[i]))


def percentile(samples: Sequence[float], p: float) -> float:
    return linear(sorted(samples), (len(samples) - 1) * p / 100)


def mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def latency_summary(latencies: Sequence[float]) -> tuple[float, float, float]:
    return (mean(latencies), percentile(latencies, 50), percentile(latencies, 99))


# -- the lesson's slips: description -> the value that slip gives (None where it cannot be computed) -------------

Slips = list[tuple[str, Any]]
"""(what the learner did and why it is wrong, the value it gives); entries may share a description when they are
one misconception (no interpolation at floor(h), round(h) or ceil(h)), so coinciding there is no ambiguity."""


def _safe(compute: Callable[[], Any]) -> Any:
    try:
        return compute()
    except (ZeroDivisionError, IndexError, ValueError, OverflowError):
        return None


def _pairs(slips: dict[str, Any]) -> Slips:
    return list(slips.items())


def request_latency_slips(ttft: float, itl: float, n_out: int) -> Slips:
    right = request_latency(ttft, itl, n_out)
    return _pairs({
        "One gap too many: the first token arrives at the TTFT, so only n_out - 1 gaps of ITL follow it, "
        "not n_out.": ttft + n_out * itl,
        "One gap too few: after the first token come n_out - 1 gaps of ITL.": ttft + (n_out - 2) * itl,
        "The TTFT is missing: the wait for the first token is part of the request's latency.": (n_out - 1) * itl,
        "The TTFT is missing, and there is one gap too many: the first token arrives at the TTFT, then n_out - 1 "
        "gaps follow.": n_out * itl,
        "The TTFT was charged to every token: it is paid once, by the first token only.": n_out * ttft
        + (n_out - 1) * itl,
        "The ITL was divided by 1000, as if it were in milliseconds: every time here is already in seconds.": ttft
        + (n_out - 1) * itl / 1000,
        "The ITL was multiplied by 1000: every time here is already in seconds, so no conversion is needed.": ttft
        + (n_out - 1) * itl * 1000,
        "The ITL was used as a rate (divided by): it is a time between tokens, so multiply by it.": _safe(
            lambda: ttft + (n_out - 1) / itl
        ),
        "The latency came out in milliseconds: return seconds.": right * 1000,
    })


def itl_slips(times: Sequence[float]) -> Slips:
    gaps = itl_from_timestamps(times)
    return _pairs({
        "The TTFT was counted as a gap (measured from 0): the first gap is times[1] - times[0], and there are "
        "len(times) - 1 of them.": [times[0], *gaps] if times else None,
        "Those are the times since the first token, not the gaps between neighbours: subtract the time just "
        "before, times[k + 1] - times[k].": [t - times[0] for t in times[1:]],
        "Each gap has the wrong sign: subtract the earlier time from the later one.": [-g for g in gaps],
        "The last gap is missing (a range one short): there are len(times) - 1 gaps.": gaps[:-1] if gaps else None,
        "The first gap is missing: the gap between the first and the second token counts too.": gaps[1:]
        if gaps
        else None,
        "The gaps came out in milliseconds: every time here is in seconds, so return seconds.": [
            g * 1000 for g in gaps
        ],
        "Those are the arrival times themselves, not the gaps between them.": list(times),
    })


def output_rate_slips(n_out: int, ttft: float, itl: float) -> Slips:
    total = request_latency(ttft, itl, n_out)
    return _pairs({
        "That is the steady decode rate, 1 / ITL: a request's output rate divides its n_out tokens by its whole "
        "latency, TTFT included.": 1 / itl,
        "Only n_out - 1 tokens were counted: all n_out tokens are delivered within the request's latency.": (n_out - 1)
        / total,
        "The TTFT is left out of the time: the user waits for it too, so divide by the whole latency.": _safe(
            lambda: n_out / ((n_out - 1) * itl)
        ),
        "The time has one gap too many (n_out gaps instead of n_out - 1).": n_out / (ttft + n_out * itl),
        "It is upside down: that is seconds per token; the rate is tokens / seconds.": total / n_out,
        "That is n_out / TTFT: divide by the whole latency, not the wait for the first token.": n_out / ttft,
        "request_latency was called with its arguments in another order: it takes (ttft, itl, n_out), while "
        "output_rate takes (n_out, ttft, itl).": _safe(lambda: n_out / request_latency(n_out, ttft, itl)),
        "request_latency was called with its arguments in another order: it takes (ttft, itl, n_out).": _safe(
            lambda: n_out / request_latency(itl, ttft, n_out)
        ),
    })


def fleet_slips(itls: Sequence[float]) -> Slips:
    if not itls:
        return []
    n = len(itls)
    return _pairs({
        "That is the rate of one average stream (1 / the mean gap), not the fleet's: add every stream's rate.": 1
        / mean(itls),
        "That is the average stream's rate: the fleet's rate is the sum of the streams' rates, not their mean.": mean(
            [1 / x for x in itls]
        ),
        "The gaps were averaged first (count / mean gap): rates add, gaps do not, so add up 1 / itl for each "
        "stream.": n / mean(itls),
        "The gaps were added up, then inverted: streams running side by side do not wait for each other, so add "
        "their rates, 1 / itl each.": 1 / sum(itls),
        "That is a sum of gaps (seconds), not of rates: each stream's rate is 1 / itl.": sum(itls),
        "That is the fastest stream alone: every stream's rate counts.": 1 / min(itls),
        "That is the slowest stream alone: every stream's rate counts.": 1 / max(itls),
        "Only the first stream was counted (the loop returned early?): add every stream's rate.": 1 / itls[0],
    })


def _exclusive(ordered: Sequence[float], p: float) -> float | None:
    """The 'exclusive' percentile (statistics.quantiles' default): rank (n + 1) x p / 100 counted from 1, the
    line through the two nearest samples extended past the ends rather than clamped to them."""
    n = len(ordered)
    if n < 2:
        return None
    h = (n + 1) * p / 100 - 1
    j = min(max(int(math.floor(h)), 0), n - 2)
    return float(ordered[j] + (h - j) * (ordered[j + 1] - ordered[j]))


def percentile_slips(samples: Sequence[float], p: float) -> Slips:
    n = len(samples)
    s = sorted(samples)
    h = (n - 1) * p / 100
    below = int(math.floor(h))
    above = min(below + 1, n - 1)
    def no_interpolation(where: str) -> str:
        return (
            f"There is no interpolation: it is the sorted sample at {where} itself; start at s[floor(h)] and move "
            "the fraction h - floor(h) of the way to the next one."
        )

    return [
        ("The samples were not sorted first: interpolate between neighbours of the sorted list.", linear(list(samples), h)),
        ("That is the nearest-rank percentile (the sample at rank ceil(p x n / 100)): this lesson interpolates "
         "linearly, at rank (n - 1) x p / 100.", s[max(math.ceil(p * n / 100) - 1, 0)]),
        ("An off-by-one rank: h = n x p / 100 counts one sample too many; the rank is (n - 1) x p / 100, counted "
         "from 0.", linear(s, n * p / 100)),
        ("An off-by-one rank: the rank is (n - 1) x p / 100, counted from 0, not (n + 1) x p / 100 (the "
         "'exclusive' method, statistics.quantiles' default, which also runs past the ends).",
         _exclusive(s, p)),
        ("An off-by-one rank: the rank is (n - 1) x p / 100, counted from 0, not (n + 1) x p / 100 (the "
         "'exclusive' method, statistics.quantiles' default, which also runs past the ends).",
         linear(s, (n + 1) * p / 100 - 1)),
        ("p was not divided by 100: p is a percentage from 0 to 100, so the rank is h = (n - 1) x p / 100, "
         "not (n - 1) x p.", linear(s, (n - 1) * p)),
        (no_interpolation("floor(h)"), s[below]),
        (no_interpolation("round(h), the nearest rank to h"), s[min(int(round(h)), n - 1)]),
        (no_interpolation("ceil(h)"), s[min(int(math.ceil(h)), n - 1)]),
        ("The interpolation runs the wrong way (from the upper sample down): start at s[floor(h)] and move up.",
         s[above] - (h - below) * (s[above] - s[below])),
        ("p was divided by 100 twice: p is already a percentage from 0 to 100, so h = (n - 1) x p / 100.",
         linear(s, (n - 1) * p / 10000)),
        ("That is the mean, not a percentile: a percentile is read off the sorted samples.", mean(samples)),
    ]


def summary_slips(latencies: Sequence[float]) -> Slips:
    m, p50, p99 = latency_summary(latencies)
    return _pairs({
        "Its p50 is the mean: the median is percentile(latencies, 50), which one slow request cannot drag up.": (
            m,
            m,
            p99,
        ),
        "Its p99 is the largest latency: the 99th percentile is percentile(latencies, 99), which interpolates.": (
            m,
            p50,
            float(max(latencies)),
        ),
        "percentile was given fractions (0.5 and 0.99): its p is a percentage, 50 and 99.": (
            m,
            percentile(latencies, 0.5),
            percentile(latencies, 0.99),
        ),
        "The three numbers are in another order: return (mean, p50, p99).": (p50, m, p99),
        "The three numbers are in another order: return (mean, p50, p99), the mean first.": (p99, p50, m),
        "The p50 and p99 are swapped: return (mean, p50, p99).": (m, p99, p50),
        "The mean was rounded down (//): divide with /.": (sum(latencies) // len(latencies), p50, p99),
    })


# -- comparing results -------------------------------------------------------------------------------------------------


def close(a: Any, b: Any, rel: float = REL_TOL, abs_tol: float = 1e-12) -> bool:
    """Whether two results agree: numbers within ``rel`` (and a tiny absolute margin for values near 0), lists and
    tuples item by item. The container's type is checked separately."""
    if isinstance(b, (list, tuple)):
        return (
            isinstance(a, (list, tuple))
            and len(a) == len(b)
            and all(close(x, y, rel, abs_tol) for x, y in zip(a, b, strict=True))
        )
    x, y = number(a), number(b)
    return x is not None and y is not None and math.isclose(x, y, rel_tol=rel, abs_tol=abs_tol)


def _matching(got: Any, slips: Slips, right: Any) -> set[str]:
    """The descriptions of the slips that give ``got`` (a slip that gives the right answer here names nothing)."""
    return {d for d, v in slips if v is not None and not close(v, right) and close(got, v)}


def named_slip(got: Any, slips: Slips, right: Any, again: Any = None, slips_again: Slips | None = None) -> str | None:
    """The one misconception of the catalogue that explains ``got`` and, when a second input was tried, ``again``
    too; '' when none does, None when some slip gives ``got`` but the evidence cannot say which one (then no
    generic guess should be made either)."""
    candidates = _matching(got, slips, right)
    if not candidates:
        return ""
    if slips_again is not None:
        candidates &= {d for d, v in slips_again if v is not None and close(again, v)}
    return candidates.pop() if len(candidates) == 1 else None


def _show(value: Any) -> str:
    """``show``, with the floats of a short list or tuple to 6 significant digits (0.01, not 0.010000000000000009)."""
    if isinstance(value, (list, tuple)) and len(value) <= 8 and all(number(v) is not None for v in value):
        items = ", ".join(show(v) for v in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' if len(value) == 1 else ''})"
    return show(value)


def _not_right(got: Call, expected: str) -> str:
    return f"{got.text} returned {_show(got.value)}, which is not right" + withheld(f" (expected {expected})") + "."


def _shape_problem(value: Any, want: type, length: int | None, what: str) -> str:
    """Why a result is not even the right kind of thing (a list of gaps, a tuple of three numbers), or ''."""
    if value is None:
        return "It returned None: did you forget the `return` statement?"
    if isinstance(value, Opaque):
        return f"It returned {value.text}: return a plain Python {want.__name__} ({what})."
    if not isinstance(value, (list, tuple)):
        return f"It returned {kind(value)}: return a {want.__name__} ({what})."
    if length is not None and len(value) != length:
        return f"It returned {len(value)} item{'' if len(value) == 1 else 's'}; {what} has {length}."
    bad = [v for v in value if number(v) is None]
    if bad:
        return f"Every item must be a number; it has {kind(bad[0])}."
    return ""


# -- one call checked against the spec, with a second call when it is wrong -----------------------------------------

#: For each function: (the spec, its slip catalogue, the unit of its answer, its parameter names).
SPECS: dict[str, tuple[Callable[..., Any], Callable[..., Slips], str, tuple[str, ...]]] = {
    "request_latency": (request_latency, request_latency_slips, "s", ("ttft", "itl", "n_out")),
    "itl_from_timestamps": (itl_from_timestamps, itl_slips, "s", ("times",)),
    "output_rate": (output_rate, output_rate_slips, "tokens/s", ("n_out", "ttft", "itl")),
    "fleet_tokens_per_second": (fleet_tokens_per_second, fleet_slips, "tokens/s", ("itls",)),
    "percentile": (percentile, percentile_slips, "", ("samples", "p")),
    "latency_summary": (latency_summary, summary_slips, "", ("latencies",)),
}

_SCALES = (1.37, 0.61, 1.9, 0.73)


def perturbed(name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Other inputs for the confirming call: every time scaled by its own factor, counts doubled plus one, lists
    changed unevenly (and a sample list one longer); a percentage p is kept (its special points are what the first
    input tests)."""
    out: dict[str, Any] = {}
    for i, (key, value) in enumerate(args.items()):
        factor = _SCALES[i % len(_SCALES)]
        if key == "n_out":
            out[key] = 2 * value + 1
        elif key == "p":
            out[key] = value
        elif key == "times":
            gaps = [g * _SCALES[k % len(_SCALES)] for k, g in enumerate(itl_from_timestamps(value))]
            start = value[0] * factor if value else 0.0
            out[key] = [start + sum(gaps[:k]) for k in range(len(value))]
        elif isinstance(value, list):
            changed = [v * _SCALES[k % len(_SCALES)] + k * 0.001 for k, v in enumerate(value)]
            if key in ("samples", "latencies"):  # one sample more: the ranks move, so methods that agreed part
                changed.append(max(changed, default=1.0) * 1.3 + 0.01)
            out[key] = changed
        else:
            out[key] = value * factor
    return out


#: The notebook's worked examples (the docstrings'), whose numbers a learner may write in place of an argument.
PAGE: dict[str, tuple[dict[str, Any], ...]] = {
    "request_latency": ({"ttft": 0.5, "itl": 0.01, "n_out": 500},),
    "output_rate": ({"n_out": 500, "ttft": 0.5, "itl": 0.01},),
    "percentile": ({"samples": [300, 100, 200, 400, 1000], "p": 90},),
}


def _call(learner: Any, name: str, args: Mapping[str, Any], keywords: bool) -> Call:
    return call_with(learner, name, SPECS[name][3], args, keywords)


def check(
    learner: Any,
    name: str,
    *,
    keywords: bool = False,
    raised: str = "",
    other: Mapping[str, Any] | None = None,
    **args: Any,
) -> None:
    """Call the learner's ``name`` with ``args``, compare with the spec, and explain a wrong result.

    ``raised``: a sentence to add when the call raises (the special point it tested), e.g. "With one sample...".
    ``other``: the second input that must confirm a slip before it is named (default: :func:`perturbed`).
    """
    spec, slips_of, unit, _ = SPECS[name]
    expected = spec(**args)
    try:
        got = _call(learner, name, args, keywords)
    except LearnerRaised as err:
        if raised:
            raise LearnerRaised(f"{err} {raised}") from None
        raise
    problem = result_problem(name, got, args, expected)
    if not problem:
        return
    head = _not_right(got, _show(expected) if not isinstance(expected, float) else f"{expected:.6g}")
    if problem is not True:
        if close(got.value, expected):  # the right value, but a rule of the spec broken on the way
            head = f"{got.text} returned {_show(got.value)}."
        raise Mismatch(f"{head} {problem}")
    other = dict(other) if other is not None else perturbed(name, args)
    try:
        again: Call | None = _call(learner, name, other, keywords)
    except LearnerRaised:
        again = None
    why = named_slip(
        got.value,
        slips_of(**args),
        expected,
        None if again is None else again.value,
        slips_of(**other) if again is not None else [],
    )
    if why is None:
        raise Mismatch(f"{head} {NOT_SURE} {_hint(name)}")
    expected_again = spec(**other)
    again_value = None if again is None else again.value
    if not why:
        why = _rounded_both(got.value, expected, again_value, expected_again)
    if not why and again is not None and _constant(got.value, again.value, expected, expected_again):
        why = (
            f"{again.text} returned {_show(again.value)} as well: it gives the same answer whatever the inputs. Is it "
            "hard-coded, or copied from the worked example? Compute it from the arguments."
        )
    if not why:
        why = _ignored_argument(learner, name, args, got.value, keywords)
    if not why and again is not None:
        why = structural_slip(spec, SPECS[name][3], [(args, got.value), (other, again.value)], PAGE.get(name, ()))
    if not why and not isinstance(expected, (list, tuple)):
        why = _generic(got.value, expected, again_value, expected_again, unit)
    if not why and isinstance(expected, tuple):
        why = _which_items(got.value, expected)
    if not why:
        why = f"{NOT_SURE} {_hint(name)}"
    raise Mismatch(f"{head} {why}")


def _decimals(value: Any, expected: Any) -> set[int]:
    """The numbers of decimals (0 to 6) the right result (a number, or each item of a list) rounds to ``value`` at."""
    if isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(expected) or not expected:
            return set()
        pairs = list(zip(value, expected, strict=True))
    else:
        pairs = [(value, expected)]
    if close(value, expected):
        return set()
    return {d for d in range(7) if all(number(v) is not None and number(v) == round(e, d) for v, e in pairs)}


def _rounded_both(got: Any, expected: Any, again: Any, expected_again: Any) -> str:
    """Rounding named only when the second input's result is the right one rounded to the same decimals too."""
    if again is None or close(again, expected_again):
        return ""
    digits = _decimals(got, expected) & _decimals(again, expected_again)
    if not digits:
        return ""
    (only,) = digits if len(digits) == 1 else (None,)
    places = (
        "a few decimal places"
        if only is None
        else "a whole number"
        if only == 0
        else f"{only} decimal place{'s' if only > 1 else ''}"
    )
    return (
        f"On two different inputs it is the right result rounded to {places}: keep the full value (no round(), "
        "int() or formatting); small values such as gaps of a few milliseconds round away to 0."
    )


def _ignored_argument(learner: Any, name: str, args: Mapping[str, Any], got: Any, keywords: bool) -> str:
    """Change one argument at a time: a result that stays put while the right one moves ignores that argument."""
    spec, _, _, params = SPECS[name]
    if len(params) < 2 or number(got) is None:
        return ""
    moved = perturbed(name, args)
    for param in params:
        one = {**args, param: moved[param]}
        if close(spec(**one), spec(**args)):
            continue
        try:
            value = _call(learner, name, one, keywords).value
        except LearnerRaised:
            continue
        if number(value) is not None and type(value) is type(got) and value == got:
            return (
                f"It gives the same result when only `{param}` changes: it ignores its `{param}` argument (a "
                "value typed in instead of it, from the worked example?). Use the argument."
            )
    return ""


def _generic(got: Any, expected: Any, again: Any, expected_again: Any, unit: str) -> str:
    """A generic slip of :mod:`grader.diagnose` (a unit factor, a reciprocal, rounding, a near miss), named only
    when the second input's wrong result shows the same slip; a type slip needs no second input."""
    first = candidates(got, expected, unit=unit)
    if not first:
        return ""
    if first[0].key.startswith("type:"):
        return first[0].sentence
    if again is None or close(again, expected_again):
        return ""
    slip = confirmed(first, candidates(again, expected_again, unit=unit))
    return slip.sentence if slip else ""


def _constant(a: Any, b: Any, expected: Any, expected_again: Any) -> bool:
    return type(a) is type(b) and a == b and not close(expected, expected_again)


def _which_items(value: Any, expected: tuple[float, ...]) -> str:
    names = ("mean", "p50", "p99")
    wrong = [names[i] for i, (v, e) in enumerate(zip(value, expected, strict=True)) if not close(v, e)]
    return f"Its {' and '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not right. " if wrong else ""


def _hint(name: str) -> str:
    return {
        "request_latency": "recount the gaps after the first token, and keep every time in seconds.",
        "itl_from_timestamps": "each gap is a later arrival time minus the one just before it.",
        "output_rate": "divide all n_out tokens by the whole latency from request_latency(ttft, itl, n_out).",
        "fleet_tokens_per_second": "turn each gap into a rate, 1 / itl, and add the rates up.",
        "percentile": "sort, take the rank h = (n - 1) x p / 100 from 0, and interpolate between s[floor(h)] and "
        "the next sample.",
        "latency_summary": "return (mean, percentile(latencies, 50), percentile(latencies, 99)).",
    }[name]


def _copy_of(param: str) -> str:
    """How to copy a list argument: samples are sorted anyway; arrival times are in order already, so only a
    plain copy is worth suggesting (sorting them would hide a learner's real slip)."""
    return f"sorted({param}) or list({param})" if param in ("samples", "latencies") else f"list({param})"


def _after_semicolon(hint: str) -> str:
    """A hint continuing NOT_SURE's sentence after its semicolon: its first word in lower case, unless it is an
    acronym (ITL, TTFT)."""
    return hint[:1].lower() + hint[1:] if hint[1:2].islower() else hint


def result_problem(name: str, got: Call, args: Mapping[str, Any], expected: Any) -> str | bool:
    """'' when the result is right; a sentence when it is the wrong kind of thing or broke a rule of the spec (a
    modified argument, a list where a tuple is asked for); True when it is a wrong value to diagnose."""
    params = SPECS[name][3]
    for position, param in enumerate(params):
        if isinstance(args[param], list) and got.modified(position, param):
            return (
                f"It changed the caller's list `{param}` (sorted, emptied or edited it in place): work on a copy, "
                f"{_copy_of(param)}, and leave the argument as it was."
            )
    value = got.value
    if name == "itl_from_timestamps":
        if number(value) is not None:
            gaps = itl_from_timestamps(args["times"])
            if gaps and close(value, mean(gaps)):
                return "That is the average gap (the TPOT): return every gap, as a list."
            return "It returned one number: return the list of the gaps (an empty list for one token)."
        problem = _shape_problem(value, list, None, "the gaps between consecutive tokens")
        if problem:
            return problem
        if close(value, expected):
            if type(value) is list:
                if got.same_as:
                    return f"It returned {got.same_as} itself: return a new list."
                return ""
            return "The gaps are right, but it returned a tuple: return a list."
        if len(value) != len(expected) and not any(
            close(value, v) for _, v in itl_slips(args["times"]) if v is not None
        ):
            return (
                f"It returned {len(value)} gaps for {len(args['times'])} tokens: n tokens have n - 1 gaps between "
                "them (none for one token)."
            )
        return True
    if name == "latency_summary":
        problem = _shape_problem(value, tuple, 3, "the tuple (mean, p50, p99)")
        if problem:
            return problem
        if close(value, expected):
            return "" if type(value) is tuple else "The numbers are right, but it returned a list: return a tuple."
        return True
    if number(value) is not None and close(value, expected):
        return ""
    if value is None or number(value) is None:
        return explain(value, 1.0) or f"It returned {kind(value)}; expected a number."
    return True


# -- value and choice answers --------------------------------------------------------------------------------------


def expect_value(
    name: str,
    value: Any,
    expected: float,
    *,
    meaning: str,
    slips: Mapping[str, float],
    unit: str = "",
    abs_tol: float = 0.0,
    hint: str = "",
    carried: Carried | None = None,
) -> None:
    """Check a by-hand number; ``meaning`` says in words what it is (never its value). Learners round what they
    type, so a slip is recognised within 0.2%, and only when no other slip of the list is that close.

    With ``carried`` (grader.checks.Carried), an answer worked right from the learner's own earlier answers, one
    of them wrong, earns its points too (one bug costs once); a wrong one keeps its feedback, its slip named from
    the right inputs, and is told when it does not follow from the learner's own earlier answers either."""
    got = number(value)
    follows = carried.value() if carried is not None else None
    if follows is not None and within(follows, expected, REL_TOL, abs_tol):
        follows = None  # the earlier slip does not change this answer: only the right value is right
    if got is not None and math.isfinite(got):
        if within(got, expected, REL_TOL, abs_tol):
            return
        if carried is not None and follows is not None and within(got, follows, REL_TOL, abs_tol):
            if carried.learner is not None:
                carried.learner.carried.update(carried.wrong)
            return
    tolerance = f"within {abs_tol:g}" if abs_tol else f"within {REL_TOL:g} relative"
    text = (
        f"`{name}` is {show(value)}, which is not right for {meaning}"
        + withheld(f" (expected {expected:.6g}, {tolerance})")
        + "."
    )
    why, matching = "", []
    if got is not None:
        # a slip that gives the right value on these numbers cannot have given a wrong one: never named
        matching = [
            d
            for d, v in slips.items()
            if math.isclose(got, v, rel_tol=2e-3) and not within(v, expected, REL_TOL, abs_tol)
        ]
        why = either(matching[0], got, expected, REL_TOL, abs_tol, slips[matching[0]]) if len(matching) == 1 else ""
    if not why and got is not None and math.isfinite(got):
        why = rounded_too_far(got, expected, REL_TOL, abs_tol)  # the rule of every lesson's by-hand checks
    if not why:
        why = explain(value, expected, unit=unit, rel=2e-3, by_hand=True)
    if not why:
        why = f"{NOT_SURE} {_after_semicolon(hint)}"
    elif why.startswith("It is close") and hint:
        why = f"{why} {hint}"
    if carried is not None and follows is not None and got is not None and math.isfinite(got):
        names = " and ".join(f"`{n}`" for n in carried.wrong)
        why += f" It does not follow from your own {names} either, so look for a slip in this step too."
    raise (KnownSlip if matching else Mismatch)(f"{text} {why}")  # a known slip is never called a copy


rq = lesson_fixture(
    "rq",
    request_latency=request_latency, itl_from_timestamps=itl_from_timestamps, output_rate=output_rate,
    fleet_tokens_per_second=fleet_tokens_per_second, percentile=percentile, latency_summary=latency_summary,
    check=check, expect_value=expect_value, Carried=Carried, Use=Use, mean=mean,
)
