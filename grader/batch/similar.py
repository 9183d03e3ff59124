"""Similar submissions, flagged for a teaching assistant to look at; never a score.

Method (the README's batch section says why):

1. **Answer code**: a learner's code cells that differ from the lesson notebook's own (the starter code is
   everyone's), self-check cells left out.
2. **AST normal form**: each cell is parsed with :mod:`ast` (IPython's ``%``/``!`` lines dropped), docstrings
   are removed, every identifier that is not a builtin is renamed in order of first appearance (``v0``,
   ``v1``, ...), and the tree is printed back with :func:`ast.unparse`, which drops comments and layout.
   Renaming variables, adding comments, reflowing code or rewording docstrings no longer changes anything.
3. **Winnowing** (Schleimer, Wilkerson and Aiken, SIGMOD 2003: MOSS's method) over the normal form's token
   stream: hashes of every k-gram of tokens, and in each window of w consecutive hashes the smallest is
   kept. Any shared run of at least ``w + k - 1`` tokens is guaranteed to be found, reordering functions
   does not hide it, and each submission is a small set, so a class is compared through an index of
   fingerprints instead of pair by pair. As in MOSS, what most of the class shares (the one obvious way to
   write a line, a function header the lesson gives) is not evidence and is dropped.
4. Two learners are **similar** when the Jaccard index of their remaining fingerprints is at least
   :data:`~grader.config.SIMILARITY_THRESHOLD` and each has at least :data:`~grader.config.SIMILARITY_MIN_FINGERPRINTS`
   of them (a two-line answer has too few ways to be written to say anything).

It runs in the batch process after grading, reading the notebooks again (JSON only): off the hot path.
"""

from __future__ import annotations

import ast
import builtins
import io
import tokenize
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from grader.config import SIMILARITY_COMMON_SHARE, SIMILARITY_MIN_FINGERPRINTS, SIMILARITY_THRESHOLD, WINNOW_K, WINNOW_W
from grader.errors import NotebookUnreadable
from grader.read import read_submission

_BUILTINS = frozenset(dir(builtins))
_LAYOUT_TOKENS = (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER)


@dataclass(frozen=True)
class Pair:
    """Two learners whose answer code is near-identical, with that code for a side-by-side look."""

    first: str
    second: str
    similarity: float
    first_code: str
    second_code: str


def answer_cells(path: Path, starter: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The learner's own code cells (not the starter code, not self-checks), as written; none if unreadable."""
    try:
        submission = read_submission(path)
    except NotebookUnreadable:
        return ()
    cells = (c.source.strip() for c in submission.cells if not c.skip)
    return tuple(s for s in cells if s and s not in starter)


class _Canonical(ast.NodeTransformer):
    """Rename identifiers in order of first appearance and drop docstrings."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def rename(self, name: str) -> str:
        if name in _BUILTINS:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.rename(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.rename(node.arg)
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.rename(node.name)
        node.returns = None
        return self._body(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.name = self.rename(node.name)
        return self._body(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self.rename(node.name)
        return self._body(node)

    def visit_Module(self, node: ast.Module) -> ast.AST:
        return self._body(node)

    def _body(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module) -> ast.AST:
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node


def normal_form(cells: Sequence[str]) -> str:
    """The cells with names, comments, docstrings and layout normalised away (one naming across all of them);
    a cell that does not parse is left out."""
    canonical = _Canonical()
    forms = []
    for cell in cells:
        lines = [line for line in cell.splitlines() if not line.lstrip().startswith(("%", "!"))]
        try:
            forms.append(ast.unparse(canonical.visit(ast.parse("\n".join(lines)))))
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # parsed, never run: a hostile cell is left out
            continue
    return "\n".join(form for form in forms if form)


def tokens(normal: str) -> list[str]:
    """The normal form's token stream (no comments or line breaks; indentation kept as structure)."""
    try:
        return [t.string or tokenize.tok_name[t.type] for t in tokenize.generate_tokens(io.StringIO(normal).readline) if t.type not in _LAYOUT_TOKENS]
    except (tokenize.TokenError, SyntaxError):
        return []


def winnow(stream: Sequence[str], k: int = WINNOW_K, w: int = WINNOW_W) -> frozenset[int]:
    """The winnowing fingerprints of a token stream: the smallest k-gram hash of every window of w."""
    hashes = [zlib.crc32("\0".join(stream[i : i + k]).encode()) for i in range(len(stream) - k + 1)]
    return frozenset(min(hashes[start : start + w]) for start in range(max(len(hashes) - w + 1, 1 if hashes else 0)))


def fingerprints(cells: Sequence[str]) -> frozenset[int]:
    return winnow(tokens(normal_form(cells)))


def similar_pairs(codes: Mapping[str, Sequence[str]], threshold: float = SIMILARITY_THRESHOLD) -> list[Pair]:
    """Pairs of learners (``codes``: learner -> answer cells) whose fingerprints overlap at least ``threshold``."""
    prints = {learner: fingerprints(cells) for learner, cells in codes.items()}
    shared_by = Counter(f for fs in prints.values() for f in fs)
    common = max(2.0, SIMILARITY_COMMON_SHARE * len(prints))  # a fingerprint two learners share is always evidence
    prints = {learner: frozenset(f for f in fs if shared_by[f] <= common) for learner, fs in prints.items()}
    holders: dict[int, list[str]] = defaultdict(list)
    for learner, fs in prints.items():
        if len(fs) >= SIMILARITY_MIN_FINGERPRINTS:
            for f in fs:
                holders[f].append(learner)
    overlap: Counter[tuple[str, str]] = Counter()
    for names in holders.values():
        overlap.update(combinations(sorted(names), 2))
    pairs = []
    for (a, b), shared in overlap.items():
        jaccard = shared / len(prints[a] | prints[b])
        if jaccard >= threshold:
            pairs.append(Pair(a, b, jaccard, "\n\n".join(codes[a]), "\n\n".join(codes[b])))
    return sorted(pairs, key=lambda p: (-p.similarity, p.first, p.second))


def find_similar(notebooks: Iterable[tuple[str, Path]], lesson_notebook: Path | None = None) -> list[Pair]:
    """Similar pairs among ``(learner, notebook path)``; the lesson's own notebook is the starter code."""
    starter: frozenset[str] = frozenset()
    if lesson_notebook is not None:
        try:
            starter = frozenset(c.source.strip() for c in read_submission(lesson_notebook).cells)
        except NotebookUnreadable:
            pass
    codes = {learner: answer_cells(path, starter) for learner, path in notebooks}
    return similar_pairs({learner: cells for learner, cells in codes.items() if cells})
