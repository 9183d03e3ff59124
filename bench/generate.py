"""Generate N Decode submissions from the lesson notebook and its solution: a seeded, realistic mix.

Each submission is ``notebooks/decode.ipynb`` with its answer cells (found by cell id, which ``grade build``
makes the question id) filled in from the solution, filled in wrongly, or left as the stub:

- ``correct``: every answer from the solution;
- ``partial``: each answer right (60%), wrong (30%, one of a few realistic mistakes) or untouched (10%);
- ``untouched``: the notebook as handed out, at most two answers filled in;
- ``slow``: exactly one learner, all correct, whose last answer cell also spins for ``SLOW_SECONDS`` of CPU
  (slow but finishing well inside the time limit).

The same seed gives byte-identical files. Cells and their ids are kept. (The learner notebook carries no
nbgrader metadata: nbgrader learners get the release of ``exercises/decode/nbgrader/decode.ipynb``.)

Another lesson of the chapter (``generate(..., lesson="prefill")``, ``--lesson prefill``) is generated the same way
from its own notebooks, its wrong answers taken from its mistakes corpus (``exercises/<id>/mistakes/``: each
file that answers one question wrongly), so the bench of a new lesson needs no list written for it.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "notebooks" / "decode.ipynb"
SOLUTION = REPO / "solutions" / "decode.ipynb"
SLOW_SECONDS = 1.0

#: A few wrong answers per question, as a learner would write them. The bench only needs them to be
#: plausible and to cost points; the lesson's own tests check the feedback for mistakes like these.
WRONG: dict[str, list[str]] = {
    "answer_sequential": ['answer_sequential = "B"', 'answer_sequential = "No"'],
    "gb_per_step": ["gb_per_step = 7", "gb_per_step = 14e9"],
    "ms_per_token": ["ms_per_token = 0.014", "ms_per_token = 14e9 / 1e12"],
    "max_tokens_per_s": ["max_tokens_per_s = 71", "max_tokens_per_s = 0.0714"],
    "decode_step_seconds": [
        "def decode_step_seconds(param_bytes, bandwidth):\n    return bandwidth / param_bytes",
        "def decode_step_seconds(param_bytes, bandwidth):\n    return param_bytes / bandwidth * 1e3",
    ],
    "tokens_per_second": [
        "def tokens_per_second(param_bytes, bandwidth):\n    return 1000 / decode_step_seconds(param_bytes, bandwidth)",
        "def tokens_per_second(param_bytes, bandwidth):\n    return param_bytes / bandwidth",
    ],
    "decode_time": [
        "def decode_time(n_tokens, param_bytes, bandwidth):\n    return (n_tokens - 1) * decode_step_seconds(param_bytes, bandwidth)",
        "def decode_time(n_tokens, param_bytes, bandwidth):\n    return n_tokens * tokens_per_second(param_bytes, bandwidth)",
    ],
    "generate": [
        "def generate(next_token, prompt, n):\n"
        "    for _ in range(n):\n"
        "        prompt.append(next_token(prompt))\n"
        "    return prompt",
        "def generate(next_token, prompt, n):\n"
        "    out = list(prompt)\n"
        "    for _ in range(n):\n"
        "        out.append(next_token(prompt))\n"
        "    return out",
    ],
    "call_order_is_sequential": [
        "def call_order_is_sequential(next_token, prompt, n):\n    return True",
        "def call_order_is_sequential(next_token, prompt, n):\n"
        "    seen = []\n"
        "    generate(lambda s: seen.append(len(s)) or next_token(s), prompt, n)\n"
        "    return len(seen) == n",
    ],
    "intensity_4bit": ["intensity_4bit = 2", "intensity_4bit = 0.5"],
    "ridge_point": [
        "def ridge_point(peak_flops, bandwidth):\n    return bandwidth / peak_flops",
        "def ridge_point(peak_flops, bandwidth):\n    return round(peak_flops / bandwidth)",
    ],
    "answer_prefill_vs_decode": ['answer_prefill_vs_decode = "A"', 'answer_prefill_vs_decode = "c) weights"'],
    "answer_batching_bug": ['answer_batching_bug = "C"', "answer_batching_bug = 2"],
    "request_time": [
        "def request_time(ttft, itl, n_out):\n    return ttft + n_out * itl",
        "def request_time(ttft, itl, n_out):\n    return n_out * itl",
    ],
    "answer_rate_definitions": ['answer_rate_definitions = "A"', 'answer_rate_definitions = "B"'],
    "batch_throughput": [
        "def batch_throughput(param_bytes, bandwidth, batch):\n"
        "    tps = tokens_per_second(param_bytes, bandwidth)\n"
        "    return (tps, batch * tps)",
        "def batch_throughput(param_bytes, bandwidth, batch):\n"
        "    tps = tokens_per_second(param_bytes, bandwidth)\n"
        "    return batch * tps",
    ],
    "kv_step_seconds": [
        "def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):\n"
        "    return (param_bytes + kv_bytes_per_token) * context_len / bandwidth",
        "def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):\n"
        "    return param_bytes / bandwidth + kv_bytes_per_token * context_len",
    ],
    "kv_decode_time": [
        "def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):\n"
        "    return n_tokens * kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len, bandwidth)",
        "def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):\n"
        "    return sum(kv_step_seconds(param_bytes, kv_bytes_per_token, k, bandwidth) for k in range(n_tokens))",
    ],
    "expected_tokens_per_pass": [
        "def expected_tokens_per_pass(k, a):\n    return k * a + 1",
        "def expected_tokens_per_pass(k, a):\n    return (1 - a ** k) / (1 - a)",
    ],
}

SPIN = (
    "\n\nimport time as _time  # a slow but finishing notebook\n"
    "_start = _time.perf_counter()\n"
    f"while _time.perf_counter() - _start < {SLOW_SECONDS}:\n"
    "    pass\n"
)


@dataclass(frozen=True)
class Learner:
    id: str
    kind: str
    answers: dict[str, str]
    """Per question: ``right``, ``wrong<k>`` or ``stub``."""


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _answer_cells(nb: dict[str, Any], lesson: str = "decode") -> dict[str, dict[str, Any]]:
    """Answer cells by question id (``grade build`` gives an answer cell its question's id)."""
    from grader.lessons import load_lesson

    questions = {q.id for q in load_lesson(lesson).questions}
    return {cell["id"]: cell for cell in nb["cells"] if cell["cell_type"] == "code" and cell.get("id") in questions}


def corpus_wrong(lesson: str) -> dict[str, list[str]]:
    """A lesson's wrong answers per question, from its corpus: each file expected wrong on one question only,
    written for the page's numbers (unfilled, `{params_b}e9` was a syntax error in the bench's notebooks)."""
    from grader.authoring.corpus import load_corpus
    from grader.lessons import load_lesson
    from grader.params import default_params, render

    loaded = load_lesson(lesson)
    page = default_params(loaded)  # an entry that names the learner's numbers ({params_b}) is written for the page's
    wrong: dict[str, list[str]] = {q.id: [] for q in loaded.questions}
    for entry in load_corpus(loaded):
        marked = [q for q in wrong if (x := entry.expected(q)) is not None and x.wrong]
        if len(marked) == 1:
            wrong[marked[0]].append(render(entry.code, page))
    return wrong


def plan(n: int, seed: int, questions: list[str] | None = None, wrong: dict[str, list[str]] | None = None) -> list[Learner]:
    """Who gets what: a seeded mix, with exactly one slow learner when ``n >= 2``.

    Each learner's kind, and each of their answers, is drawn from its own seeded stream, so adding a question
    to the lesson changes no other draw: a bench of a lesson that grew grades the same learners, with the
    same answers to the questions both versions share (an A/B against an older checkout stays fair).
    """
    wrong = WRONG if wrong is None else wrong
    questions = list(wrong) if questions is None else questions
    rng = random.Random(seed)
    slow_at = rng.randrange(n) if n >= 2 else -1
    rolls = [rng.random() for _ in range(n)]
    learners = []
    for i, roll in enumerate(rolls):
        kind = "slow" if i == slow_at else "correct" if roll < 0.3 else "partial" if roll < 0.8 else "untouched"
        own = random.Random(f"{seed}:{i}")
        filled = set(own.sample(questions, own.randint(0, 2))) if kind == "untouched" else set()
        answers = {}
        for q in questions:
            draw = random.Random(f"{seed}:{i}:{q}")
            if kind in ("correct", "slow") or q in filled:
                answers[q] = "right"
            elif kind == "untouched":
                answers[q] = "stub"
            else:
                r = draw.random()
                answers[q] = "right" if r < 0.6 else f"wrong{draw.randrange(len(wrong[q]))}" if r < 0.9 else "stub"
        learners.append(Learner(f"learner{i + 1:04d}", kind, answers))
    return learners


def notebook_for(
    learner: Learner, template: dict[str, Any], solution: dict[str, Any], lesson: str = "decode",
    wrong: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    wrong = WRONG if wrong is None else wrong
    nb = copy.deepcopy(template)
    cells = _answer_cells(nb, lesson)
    right = _answer_cells(solution, lesson)
    for q, choice in learner.answers.items():
        if choice == "right":
            cells[q]["source"] = right[q]["source"]
        elif choice.startswith("wrong"):
            cells[q]["source"] = wrong[q][int(choice[5:])]
    if learner.kind == "slow":
        last = list(cells.values())[-1]
        source = last["source"] if isinstance(last["source"], str) else "".join(last["source"])
        last["source"] = source + SPIN
    return nb


def generate(n: int, out: Path, seed: int = 1, lesson: str = "decode") -> list[Learner]:
    """Write ``out/<learner>.ipynb`` for ``n`` learners and ``out/manifest.json``; return the plan."""
    if lesson == "decode":
        template, solution, wrong = _load(NOTEBOOK), _load(SOLUTION), WRONG
    else:
        template = _load(REPO / "notebooks" / f"{lesson}.ipynb")
        solution, wrong = _load(REPO / "solutions" / f"{lesson}.ipynb"), corpus_wrong(lesson)
        thin = sorted(q for q, answers in wrong.items() if not answers)
        if thin:
            raise SystemExit(f"bench: the {lesson} corpus has no single-question wrong answer for {thin}")
    cells = set(_answer_cells(template, lesson))
    if set(wrong) != cells:  # a bench that skips questions would time less grading than a class gets
        raise SystemExit(
            f"bench: WRONG must cover exactly the lesson's questions: missing {sorted(cells - set(wrong))}, "
            f"unknown {sorted(set(wrong) - cells)}"
        )
    out.mkdir(parents=True, exist_ok=True)
    learners = plan(n, seed, wrong=wrong)
    for learner in learners:
        nb = notebook_for(learner, template, solution, lesson, wrong)
        (out / f"{learner.id}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    manifest = {"seed": seed, "learners": [{"id": x.id, "kind": x.kind, "answers": x.answers} for x in learners]}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return learners


if __name__ == "__main__":  # pragma: no cover
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lesson", default="decode")
    args = parser.parse_args()
    kinds = [x.kind for x in generate(args.n, args.out, args.seed, args.lesson)]
    print({k: kinds.count(k) for k in sorted(set(kinds))})
