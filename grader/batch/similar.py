"""Similar submissions, flagged for a teaching assistant to look at; never a score.

Method (the README's batch section says why):

1. **Answer code**: a learner's code cells that differ from the lesson notebook's own (the starter code is
   everyone's), self-check cells left out.
2. **AST normal form**: each cell is parsed with :mod:`ast` (IPython's ``%``/``!`` lines dropped), and its
   tree is written out in preorder as a token stream: each node's type, every identifier that is not a
   builtin renamed in order of first appearance in the cell (``v0``, ``v1``, ...), constants as written (their
   first 40 characters), docstrings and every other statement of literals alone left out. Comments and
   layout never reach a tree, and the size bounds count code, not comments or strings (:func:`code_chars`).
   Renaming variables, adding comments, reflowing code, rewording docstrings or moving cells no longer changes
   anything. (Walking the tree directly costs a third of printing it back with :func:`ast.unparse` and
   tokenizing that; cells the class shares word for word are read once.)
3. **Winnowing** (Schleimer, Wilkerson and Aiken, SIGMOD 2003: MOSS's method) over that token
   stream: hashes of every k-gram of tokens, and in each window of w consecutive hashes the smallest is
   kept. Any shared run of at least ``w + k - 1`` tokens is guaranteed to be found, reordering functions
   does not hide it, and each submission is a small set, so a class is compared through an index of
   fingerprints instead of pair by pair. What the lesson's notebook gives (its skeleton: function headers,
   given lines, even inside a cell the learner edited) and what most of the class shares is dropped.
4. **Rarity**: every other fingerprint weighs by how few learners have it (``log((n + 1) / holders)``, a
   document frequency weighting, in units of a fingerprint only two learners share): the one-line answer
   half the class writes alike weighs little, code only two learners have weighs most.
5. Two learners are **similar** when the weighted Jaccard index of their fingerprints is at least
   :data:`~grader.config.SIMILARITY_THRESHOLD` and what they share weighs at least
   :data:`~grader.config.SIMILARITY_MIN_FINGERPRINTS` units (a short answer has too few ways to be written to
   say anything). Pairs are ranked by that weight, the evidence. ``bench/similarity.py`` measures precision
   and recall on a class of independent answers with planted near-copies.
6. **Chance** (:class:`_Answers`): fingerprints of one answer are one observation, not many, so a pair must
   also share answers (cells) that chance does not explain: each answer they wrote alike is as likely to
   coincide as the share of the class that wrote it alike says, and over the answers and the class's pairs
   that must predict fewer than :data:`~grader.config.SIMILARITY_CHANCE` pairs (in a class of at least
   :data:`~grader.config.SIMILARITY_CHANCE_CLASS`; a smaller one cannot say how common an answer is).

It runs in the batch process after grading, on the notebooks as the batch read them (never reading a file
again): off the hot path.
"""

from __future__ import annotations

import ast
import builtins
import functools
import io
import math
import tokenize
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from pathlib import Path

from grader.config import (
    SIMILARITY_CHANCE,
    SIMILARITY_CHANCE_CLASS,
    SIMILARITY_COMMON_SHARE,
    SIMILARITY_MIN_FINGERPRINTS,
    SIMILARITY_THRESHOLD,
    WINNOW_K,
    WINNOW_W,
)
from grader.errors import NotebookUnreadable
from grader.model import Submission
from grader.read import read_submission
from grader.report.class_report import Pair

_BUILTINS = frozenset(dir(builtins))


#: What of a learner's answers is compared: cells with more code than this are left out, and at most this much
#: code in all. The batch process parses them with :mod:`ast` and has no memory limit, and a tree costs tens of
#: bytes per character of code: a notebook near the size cap of one long cell must not cost gigabytes.
#: A lesson's answers are a few kilobytes; a cell this long is not an answer anyone copied by hand. Code is
#: what :func:`code_chars` counts: comments, blank lines and a string's contents cost a tree (almost) nothing and
#: never reach the comparison, so padding a copied cell with them neither hides nor dilutes it.
MAX_COMPARED_CELL_CHARS = 20_000
MAX_COMPARED_CHARS = 200_000
#: What a string literal counts as in :func:`code_chars`: the tree holds it as one node, compared by its start.
_STRING_CHARS = 40


def answer_cells(submission: Submission, starter: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The learner's own code cells (not the starter code, not self-checks), as written, within the bounds
    above."""
    cells = (c.source.strip() for c in submission.cells if not c.skip)
    kept: list[str] = []
    left = MAX_COMPARED_CHARS
    for source in cells:
        if not source or source in starter:
            continue
        size = code_chars(source)
        if size <= min(MAX_COMPARED_CELL_CHARS, left):
            kept.append(source)
            left -= size
    return tuple(kept)


def code_chars(cell: str) -> int:
    """How much code a cell holds, before parsing it: the length of its tokens without comments and layout, a
    string literal counted as :data:`_STRING_CHARS` at most. A cell Python cannot tokenize counts its full length
    (it will not parse either, and is left out of the comparison by :func:`cell_tokens`)."""
    lines = "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))
    size = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(lines).readline):
            if token.type in _LAYOUT:
                continue
            size += min(len(token.string), _STRING_CHARS) if token.type in _STRINGS else len(token.string)
    except (tokenize.TokenError, SyntaxError):
        return len(cell)
    return size


_STRINGS = frozenset({tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)})  # 3.12 splits f-strings
_LAYOUT = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)


def cell_tokens(cell: str) -> tuple[str, ...]:
    """One cell's AST normal form as a token stream: the tree in preorder, each node's type, with identifiers
    renamed in order of first appearance (builtins and attribute names kept), constants as written, and
    docstrings, comments and layout gone. Empty if the cell does not parse (IPython's ``%``/``!`` lines are
    dropped first); never raises."""
    lines = [line for line in cell.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return _cached_tokens("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # parsed, never run: a hostile cell is left out
        return ()


@functools.lru_cache(maxsize=1 << 16)
def _cached_tokens(source: str) -> tuple[str, ...]:
    """:func:`cell_tokens` of a cell's source; a class shares many cells word for word, each is read once."""
    names: dict[str, str] = {}

    def canonical(name: str) -> str:
        return name if name in _BUILTINS else names.setdefault(name, f"v{len(names)}")

    out: list[str] = []
    stack: list[ast.AST] = [ast.parse(source)]
    while stack:
        node = stack.pop()
        if not isinstance(node, ast.Module):  # a cell is not a token: an empty cell leaves nothing
            out.append(type(node).__name__)
        if isinstance(node, ast.Name):
            out.append(canonical(node.id))
        elif isinstance(node, ast.arg):
            out.append(canonical(node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(canonical(node.name))
        elif isinstance(node, ast.Attribute):
            out.append(node.attr)
        elif isinstance(node, ast.Constant):
            value = node.value[:40] if isinstance(node.value, (str, bytes)) else node.value  # never a copy of padding
            out.append(repr(value)[:40])
        children = [
            c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr_context) and not _is_string_statement(c)
        ]
        stack.extend(reversed(children))
    return tuple(out)


def _is_string_statement(child: ast.AST) -> bool:
    """A statement made of literals alone and thrown away (a docstring, a string used as a comment or as padding,
    ``'a' * 9000 + 'b'``, wherever it stands): it does nothing, and leaving it in would let padding dilute the
    comparison. One that names, calls, yields or awaits anything is code and stays."""
    return isinstance(child, ast.Expr) and not any(isinstance(n, _EFFECTS) for n in ast.walk(child.value))


_EFFECTS = (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)


def normal_form(cells: Sequence[str]) -> tuple[str, ...]:
    """The cells' AST normal form, one token stream (each cell named on its own, so moving cells changes nothing)."""
    return tuple(token for cell in cells for token in cell_tokens(cell))


def winnow(stream: Sequence[str], k: int = WINNOW_K, w: int = WINNOW_W) -> frozenset[int]:
    """The winnowing fingerprints of a token stream: the smallest k-gram hash of every window of w."""
    hashes = [zlib.crc32("\0".join(stream[i : i + k]).encode()) for i in range(len(stream) - k + 1)]
    return frozenset(min(hashes[start : start + w]) for start in range(max(len(hashes) - w + 1, 1 if hashes else 0)))


def fingerprints(cells: Sequence[str]) -> frozenset[int]:
    """The union of each cell's fingerprints: a k-gram never spans two cells, so moving cells changes nothing."""
    return frozenset().union(*(winnow(cell_tokens(cell)) for cell in cells))


def similar_pairs(
    codes: Mapping[str, Sequence[str]], threshold: float = SIMILARITY_THRESHOLD, starter: Sequence[str] = ()
) -> list[Pair]:
    """Pairs of learners (``codes``: learner -> answer cells) whose rare code overlaps, most evidence first.

    What the lesson gives (``starter``: its notebook's code cells, whose fingerprints leave every learner's set,
    even inside a cell the learner edited) and what most of the class writes alike is not evidence; every other
    fingerprint weighs by its rarity, ``log((n + 1) / holders)`` (a document frequency weighting), so a line a
    few learners share weighs less than code only these two have. A pair is listed when the weighted Jaccard
    index of their fingerprints is at least ``threshold`` and what they share weighs at least
    :data:`~grader.config.SIMILARITY_MIN_FINGERPRINTS` fingerprints that only the two of them have, and the
    answers they wrote alike are more than chance gives in a class this size (:class:`_Answers`).
    """
    given = fingerprints(starter) if starter else frozenset()
    per_cell = {learner: [winnow(cell_tokens(cell)) - given for cell in cells] for learner, cells in codes.items()}
    prints = {learner: frozenset().union(*cells) for learner, cells in per_cell.items()}
    shared_by = Counter(f for fs in prints.values() for f in fs)
    common = max(2.0, SIMILARITY_COMMON_SHARE * len(prints))  # a fingerprint two learners share is always evidence
    prints = {learner: frozenset(f for f in fs if shared_by[f] <= common) for learner, fs in prints.items()}
    answers = _Answers({learner: [c & prints[learner] for c in cells] for learner, cells in per_cell.items()})
    weight = _rarity(shared_by, len(prints))
    holders: dict[int, list[str]] = defaultdict(list)
    for learner, fs in prints.items():
        for f in fs:
            holders[f].append(learner)
    shared: defaultdict[tuple[str, str], float] = defaultdict(float)
    for f, names in holders.items():
        for pair in combinations(sorted(names), 2):
            shared[pair] += weight[f]
    mass = {learner: sum(weight[f] for f in fs) for learner, fs in prints.items()}
    pairs = []
    for (a, b), evidence in shared.items():
        similarity = evidence / (mass[a] + mass[b] - evidence)
        if similarity >= threshold and evidence >= SIMILARITY_MIN_FINGERPRINTS and not answers.by_chance(a, b):
            pairs.append(Pair(a, b, similarity, "\n\n".join(codes[a]), "\n\n".join(codes[b]), round(evidence, 1)))
    return sorted(pairs, key=lambda p: (-p.evidence, -p.similarity, p.first, p.second))


class _Answers:
    """The chance test: do two learners share answers that the class says are too rare to coincide?

    Fingerprints within one answer are not independent evidence: two learners who wrote a function the same
    common way share all of its fingerprints at once, and a class of hundreds has pairs who, by chance, wrote
    two or three of five functions alike (bench/similarity.py found such pairs flagged). The unit of chance is
    the answer (a cell): how likely a classmate is to write it alike is the share of the class that did,
    add-one smoothed, ``(holders - 1) / (n - 1)``; answers are taken as independent, and the pair's alike answers
    together predict ``n (n - 1) / 2`` times their product pairs as alike by chance in this class. Fewer than
    :data:`~grader.config.SIMILARITY_CHANCE` is evidence; more is what chance gives, and no flag. (MOSS and
    Dolos discount code many submissions share by fingerprint; this asks the same of whole answers.)
    """

    def __init__(self, cells: Mapping[str, Sequence[frozenset[int]]]) -> None:
        self.cells = {learner: [c for c in cs if c] for learner, cs in cells.items()}
        self.index: defaultdict[int, set[tuple[str, int]]] = defaultdict(set)
        for learner, cs in self.cells.items():
            for i, c in enumerate(cs):
                for f in c:
                    self.index[f].add((learner, i))
        self.holders: dict[tuple[str, int], int] = {}

    def by_chance(self, a: str, b: str) -> bool:
        """Whether the answers ``a`` and ``b`` wrote alike are as many as chance gives in this class."""
        n = len(self.cells)
        if n < SIMILARITY_CHANCE_CLASS:
            return False
        expected = n * (n - 1) / 2
        left = list(range(len(self.cells[b])))
        for i, cell in enumerate(self.cells[a]):
            match = max(left, key=lambda j: _jaccard(cell, self.cells[b][j]), default=None)
            if match is None or _jaccard(cell, self.cells[b][match]) < SIMILARITY_THRESHOLD:
                continue
            left.remove(match)
            share = max(self._holders(a, i), self._holders(b, match)) - 1
            expected *= share / (n - 1)
        return expected >= SIMILARITY_CHANCE

    def _holders(self, learner: str, i: int) -> int:
        """How many learners (``learner`` too) wrote an answer alike to ``learner``'s cell ``i``."""
        if (learner, i) not in self.holders:
            cell = self.cells[learner][i]
            near = {cand for f in cell for cand in self.index[f]}
            alike = {other for other, j in near if _jaccard(cell, self.cells[other][j]) >= SIMILARITY_THRESHOLD}
            self.holders[learner, i] = len(alike | {learner})
        return self.holders[learner, i]


def _jaccard(x: frozenset[int], y: frozenset[int]) -> float:
    return len(x & y) / len(x | y) if x or y else 0.0


def _rarity(shared_by: Mapping[int, int], learners: int) -> dict[int, float]:
    """Each fingerprint's weight: 1 for one only a pair shares, less the more learners have it.

    With one learner there is no pair, and the unit (a fingerprint two of them share) would be 0: the weights
    are then left unscaled rather than divided by nothing."""
    unit = math.log((learners + 1) / 2) or 1.0
    return {f: math.log((learners + 1) / n) / unit for f, n in shared_by.items()}


def find_similar(submissions: Iterable[tuple[str, Submission]], lesson_notebook: Path | None = None) -> list[Pair]:
    """Similar pairs among ``(learner, submission)``, as the batch read them for grading (each file is read
    once, safely: :mod:`grader.batch.choose`); the lesson's own notebook is the starter code."""
    starter: frozenset[str] = frozenset()
    if lesson_notebook is not None:
        try:
            starter = frozenset(c.source.strip() for c in read_submission(lesson_notebook).cells)
        except NotebookUnreadable:
            pass
    codes = {learner: answer_cells(submission, starter) for learner, submission in submissions}
    return similar_pairs({learner: cells for learner, cells in codes.items() if cells}, starter=sorted(starter))
