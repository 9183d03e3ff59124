"""Which of a notebook's global names each of its functions can reach: read from its code, never run.

A hidden test calls a learner's function with every earlier question's reference standing in for the learner's own
(:meth:`grader.testing.Learner.call`, so one bug costs once). Each stand-in crosses the channel on every call, and
a call with any stand-in takes the worker's slower path (its arguments snapshotted, its namespace swapped), though
most functions call none of them: a Decode notebook's calls carried ~860 stand-ins, of which its code named ~100.
A stand-in the function cannot reach changes nothing, so it is not sent.

"Can reach" is read from the notebook's source (the trusted side has it), and errs one way only: a name is left out
only when no path through the notebook's code can look it up. The reach of ``f`` is every name in ``f``'s
definition, then every name in the statements that bind those names (a ``def``, a ``class``, an assignment, a loop),
and so on. Nothing is known, and every stand-in is sent, when that reach holds a way to look a global up by a
string or a frame (``globals``, ``eval``, ``getattr``, ``__dict__``, ``f_globals``, ...), an import of a module
outside :data:`SAFE_MODULES` (its code is not read here), a name the notebook never binds that is not a builtin
(the grader's helpers, IPython's), or when a cell does not parse as Python (a magic).

Only the speed of a call depends on this; a notebook whose code reached a lesson function some other way would
have its own function called instead of the reference, which only its own answer could feel.
"""

from __future__ import annotations

import ast
import builtins
import functools
from collections.abc import Callable, Iterable

#: Modules whose code cannot look up a name in the notebook's namespace, unless handed something that does: their
#: imports keep a reach known. (A learner's own ``math.py`` beside the notebook would shadow one; see the docstring.)
SAFE_MODULES = frozenset(
    {
        "bisect",
        "cmath",
        "collections",
        "decimal",
        "fractions",
        "functools",
        "heapq",
        "itertools",
        "math",
        "numpy",
        "operator",
        "random",
        "statistics",
    }
)
#: Names through which code can look a global up by a string, or reach a namespace: a reach that holds one is not
#: known.
OPAQUE_NAMES = frozenset(
    {
        "__builtins__",
        "__import__",
        "__main__",
        "breakpoint",
        "compile",
        "delattr",
        "eval",
        "exec",
        "get_ipython",
        "getattr",
        "globals",
        "locals",
        "setattr",
        "vars",
    }
)
#: Attributes that lead from an object to a namespace or a frame (and every ``__dunder__``): not known either.
OPAQUE_ATTRIBUTES = frozenset({"f_back", "f_builtins", "f_globals", "f_locals", "tb_frame", "gi_frame", "cr_frame"})

_UNKNOWN = "\0unknown"
"""Stands in a statement's uses for something that cannot be followed (an import of an unread module, a lookup by
string); a reach that meets it is not known."""

Reach = Callable[[str], "frozenset[str] | None"]
"""``reach(name)``: every global name the code of ``name`` can reach, or None if that cannot be told."""


def reach_of(sources: Iterable[str]) -> Reach:
    """The reach of each name the cells ``sources`` (the code run, in order) bind."""
    uses: dict[str, set[str]] = {}
    for source in sources:
        cell = _cell(source)
        if cell is None:  # a magic, a null byte, a star import, a deeply nested cell: nothing can be told
            return lambda name: None
        for bound, names in cell:
            for name in bound:
                uses.setdefault(name, set()).update(names)
    cache: dict[str, frozenset[str] | None] = {}

    def reach(name: str) -> frozenset[str] | None:
        if name not in cache:
            cache[name] = _closure(name, uses)
        return cache[name]

    return reach


@functools.lru_cache(maxsize=4096)
def _cell(source: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...] | None:
    """What each top-level statement of one cell binds and uses (:func:`_read`); None if the cell cannot be read.
    Kept per source: the cells a lesson gives and most learners leave as they are are read once per process."""
    try:
        return tuple((frozenset(b), frozenset(n)) for n, b in map(_read, ast.parse(source).body))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _closure(name: str, uses: dict[str, set[str]]) -> frozenset[str] | None:
    if name not in uses:
        return None  # not a name the notebook defines: nothing to read
    seen, todo = {name}, [name]
    while todo:
        for used in uses.get(todo.pop(), ()):
            if used in seen:
                continue
            if used == _UNKNOWN or used in OPAQUE_NAMES or (used not in uses and not hasattr(builtins, used)):
                return None
            seen.add(used)
            todo.append(used)
    return frozenset(seen)


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _read(statement: ast.stmt) -> tuple[set[str], set[str]]:
    """What a top-level ``statement`` uses and what it binds, in one walk.

    Uses: the global names it can look up, when it runs or when anything it defines is called (nested functions,
    lambdas, classes, decorators and defaults included), with :data:`_UNKNOWN` for what cannot be followed. A
    function's parameters and locals are not global names; a name is taken for local only where Python takes it so
    (bound in that function's own body, not declared ``global``).

    Binds: every name it may bind at the top level, more than it does (a name stored in a nested function counts,
    as a ``global`` one would), never fewer. A star import binds what it likes: it raises, as a cell that cannot be
    followed."""
    names = _free_in([statement], set())
    bound: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
        elif isinstance(node, ast.Attribute):
            if node.attr in OPAQUE_ATTRIBUTES or (node.attr.startswith("__") and node.attr.endswith("__")):
                names.add(_UNKNOWN)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] not in SAFE_MODULES for alias in node.names):
                names.add(_UNKNOWN)
            bound.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] not in SAFE_MODULES:
                names.add(_UNKNOWN)
            for alias in node.names:
                if alias.name == "*":
                    raise SyntaxError("a star import")  # read as a cell that cannot be followed
                bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.Global):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            if node.name:
                bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return names, bound


def _free_in(nodes: list[ast.AST], local: set[str]) -> set[str]:
    """The names loaded in ``nodes`` (one scope's code, not entering the scopes nested in it) that are not in
    ``local``, with the free names of every nested scope that are not in ``local`` either."""
    loaded: set[str] = set()
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            loaded.add(node.id)
            continue
        if isinstance(node, _SCOPES):
            loaded |= _free_of_scope(node)
            todo.extend(_evaluated_outside(node))
            continue
        todo.extend(ast.iter_child_nodes(node))
    return loaded - local


def _evaluated_outside(scope: ast.AST) -> list[ast.AST]:
    """The parts of a nested scope's node that run in the enclosing scope: decorators, defaults, annotations,
    bases, and a comprehension's first iterable."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [*scope.decorator_list, *_defaults(scope.args), *_annotations(scope)]
    if isinstance(scope, ast.Lambda):
        return _defaults(scope.args)
    if isinstance(scope, ast.ClassDef):
        return [*scope.decorator_list, *scope.bases, *scope.keywords]
    if isinstance(scope, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [scope.generators[0].iter]
    return []


def _defaults(args: ast.arguments) -> list[ast.AST]:
    return [d for d in (*args.defaults, *args.kw_defaults) if d is not None]


def _annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    every = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    every += [a for a in (function.args.vararg, function.args.kwarg) if a is not None]
    found: list[ast.AST] = [a.annotation for a in every if a.annotation is not None]
    return found + ([function.returns] if function.returns is not None else [])


def _free_of_scope(scope: ast.AST) -> set[str]:
    """The names a nested scope looks up outside itself (its globals, and its enclosing functions' locals)."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
        body: list[ast.AST] = list(scope.body) if isinstance(scope.body, list) else [scope.body]
        return _free_in(body, params | _locals_of(body))
    if isinstance(scope, ast.ClassDef):
        # A class body's names are not visible to the functions inside it: what they look up is never the class's.
        direct = _free_in(list(scope.body), set())
        return direct  # the class's own names are not subtracted: over-counting is safe, under-counting is not
    if isinstance(scope, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        parts: list[ast.AST] = [scope.elt] if not isinstance(scope, ast.DictComp) else [scope.key, scope.value]
        targets: set[str] = set()
        for i, generator in enumerate(scope.generators):
            parts += ([] if i == 0 else [generator.iter]) + list(generator.ifs)
            targets |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        return _free_in(parts, targets)
    return set()


def _locals_of(body: list[ast.AST]) -> set[str]:
    """The names one function's own body binds (not the scopes nested in it) and does not declare ``global`` or
    ``nonlocal``: its locals."""
    stored: set[str] = set()
    declared: set[str] = set()
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                stored.add(node.id)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
            todo.extend(_evaluated_outside(node))
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            todo.extend(_evaluated_outside(node))  # a walrus in a comprehension binds here: not counted, so free
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored |= {a.asname or a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stored.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            stored.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            stored.add(node.rest)
        todo.extend(ast.iter_child_nodes(node))
    return stored - declared
