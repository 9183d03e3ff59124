"""Mutants of one solution function: cosmic-ray's operators, applied one occurrence at a time.

Each mutant is the function's source with one small change (``/`` made ``*``, a loop that never runs, a
comparison flipped...). It is named by a stable id, a hash of its code as Python sees it (formatting,
comments and the docstring left out), so a lesson can record an equivalent mutant once and keep the record
through cosmetic edits of its solution.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from grader.errors import LessonError, UsageError
from grader.model import Cell

#: How the audit is installed; named in the message when cosmic-ray is missing.
INSTALL_HINT = "python3 -m pip install -e '.[audit]'"


@dataclass(frozen=True)
class Mutant:
    """One changed version of a solution function, ready to be appended to the solution as a last cell."""

    function: str
    id: str
    origin: str
    """Where it came from: ``cosmic-ray ReplaceBinaryOperator_Div_Mul #0`` or ``audit.toml: <name>``."""
    code: str
    diff: str
    """Unified diff of ``code`` against the solution's function."""


@dataclass(frozen=True)
class Generated:
    """A function's library mutants, and how many were dropped before grading (and why)."""

    mutants: tuple[Mutant, ...]
    uncompilable: int
    unchanged: int
    """Same code as the solution, or as an earlier mutant, once formatting is set aside."""


def function_source(cells: tuple[Cell, ...], name: str) -> str:
    """The source of the last top-level ``def name`` in the graded cells (the definition that is in force)."""
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell  # type: ignore[no-untyped-call]  # IPython's own syntax (magics) to Python
    found: str | None = None
    for cell in cells:
        if cell.skip:
            continue
        code = transform(cell.source)
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        lines = code.splitlines(keepends=True)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found = "".join(lines[first - 1 : node.end_lineno])
    if found is None:
        raise LessonError(f"The solution notebook defines no function {name!r} at the top level of a graded cell.")
    return found if found.endswith("\n") else found + "\n"


def mutant_id(code: str) -> str:
    """A stable name for a mutant: a hash of its syntax tree, docstrings left out."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:10]


def diff(original: str, changed: str, function: str, mutant: str) -> str:
    """Unified diff of a mutant against the solution's function."""
    return "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True),
            changed.splitlines(keepends=True),
            fromfile=f"solution {function}",
            tofile=f"mutant {mutant}",
        )
    )


def _operators() -> list[tuple[str, Any]]:
    """cosmic-ray's core operators that take no arguments (the two that do replace names with random values)."""
    try:
        from cosmic_ray.operators.provider import OperatorProvider
    except ImportError:
        raise UsageError(
            f"`grade audit` mutates the solution with cosmic-ray, which is not installed: run {INSTALL_HINT}."
        ) from None
    provider = OperatorProvider()
    return [(name, provider[name]) for name in provider if not provider[name].arguments()]


def _library_mutants(source: str) -> Iterator[tuple[str, str]]:
    """(operator and occurrence, mutated source) for every place every operator applies."""
    from cosmic_ray.mutating import mutate_code

    for name, operator_class in _operators():
        operator = operator_class()
        occurrence = 0
        while True:
            mutated = mutate_code(source, operator, occurrence)
            if mutated is None:
                break
            yield f"cosmic-ray {name} #{occurrence}", mutated
            occurrence += 1


def generate_mutants(function: str, source: str, taken: frozenset[str] = frozenset()) -> Generated:
    """Every library mutant of ``source`` (one function's code), uncompilable and unchanged ones dropped.

    ``taken``: ids of mutants already made another way (the lesson's own slips), not made again.
    """
    seen = {mutant_id(source), *taken}
    mutants: list[Mutant] = []
    uncompilable = unchanged = 0
    for origin, mutated in _library_mutants(source):
        try:
            compile(mutated, f"<mutant of {function}>", "exec")
        except (SyntaxError, ValueError):
            uncompilable += 1
            continue
        key = mutant_id(mutated)
        if key in seen:
            unchanged += 1
            continue
        seen.add(key)
        mutants.append(Mutant(function, key, origin, mutated, diff(source, mutated, function, key)))
    return Generated(tuple(mutants), uncompilable, unchanged)
