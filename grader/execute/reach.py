"""Which of a notebook's global names each of its functions can reach: read from its code, never run.

A hidden test calls a learner's function with every earlier question's reference standing in for the learner's own
(:meth:`grader.testing.Learner.call`, so one bug costs once). Each stand-in crosses the channel on every call, and
a call with any stand-in takes the worker's slower path (its arguments snapshotted, its namespace swapped), though
most functions call none of them: a Decode notebook's calls carried ~860 stand-ins, of which its code named ~100.
A stand-in the function cannot reach changes nothing, so it is not sent.

"Can reach" is read from the notebook's source (the trusted side has it), and errs one way only: a name is left out
only when no path through the notebook's code can look it up.

- Each top-level statement is read once: the global names it mentions (a function's or a class's own code
  included, its parameters and locals not: they are scoped as Python scopes them) and the names it binds at the top
  level. Every one of those names is joined to all the others, both ways: a statement may call a function, or hang
  code on an object (``REGISTRY.append(lambda: step())``, ``f.cb = ...``, a decorator that registers), so what it
  mentions can lead to any of the rest. The reach of ``f`` is everything joined to ``f``, followed to the end.
- Nothing is known, and every stand-in is sent, when a reach holds a way to look a global up by a string or through
  an object's insides: a name of :data:`OPAQUE_NAMES`, any name or attribute that begins with two underscores
  (``__dict__``, ``__globals__``, ``__loader__``, a class-private ``__x``), an attribute of
  :data:`OPAQUE_ATTRIBUTES` (a frame's), such a name in a string (``attrgetter("__globals__")``, a format field),
  an import of a module outside :data:`SAFE_MODULES` (its code is not read here), or a name the notebook never binds
  that is not a builtin (the grader's helpers, IPython's); or when a cell is IPython syntax (a magic) or a star import.
- A cell that is neither Python nor IPython syntax is the learner's syntax error, which runs nothing
  (:func:`grader.execute.cells.ipython_syntax`, the worker's own rule), and is passed over, unless a future import
  somewhere could make it parse.

``tests/test_reach.py`` holds the ways a review found to reach a name unseen (mutation, nested ``global``, class
bodies, name mangling, lookups by string); each is caught. Only the speed of a call depends on this: a notebook
whose code reached a lesson function some way still unseen would have its own function called instead of the
reference, which only its own answer could feel.
"""

from __future__ import annotations

import ast
import builtins
import functools
from collections.abc import Callable, Sequence

from grader.execute.cells import ipython_syntax

#: Modules whose every attribute is a plain function or number (no module, class or namespace inside, no function
#: that looks a name up by a string): their imports keep a reach known. Any other module's code is not read here.
SAFE_MODULES = frozenset({"cmath", "math"})
#: Names through which code can look a global up by a string, or reach a namespace: a reach that holds one (the
#: notebook not binding it) is not known, nor one that holds any name beginning with two underscores.
OPAQUE_NAMES = frozenset(
    {"breakpoint", "compile", "delattr", "eval", "exec", "get_ipython", "getattr", "globals", "help", "locals"}
    | {"setattr", "vars"}
)
#: Attributes that lead from an object to a frame and its namespaces: not known either (nor any ``__attribute``).
OPAQUE_ATTRIBUTES = frozenset(
    {"ag_frame", "cr_frame", "f_back", "f_builtins", "f_globals", "f_locals", "gi_frame", "tb_frame"}
)

_UNKNOWN = "\0unknown"
"""Stands in a statement's names for something that cannot be followed (an import of an unread module, a lookup by
string); a reach that meets it is not known."""

Reach = Callable[[str], "frozenset[str] | None"]
"""``reach(name)``: every global name the code of ``name`` can reach, or None if that cannot be told."""

_Cell = tuple[tuple[frozenset[str], frozenset[str]], ...]
"""One cell read: for each top-level statement, the names it joins and, among them, those it binds."""


def reach_of(sources: Sequence[str]) -> Reach:
    """The reach of each name the cells ``sources`` (the code run, in order) bind."""
    future = any("__future__" in source for source in sources)  # a future import may change what parses
    statements: list[tuple[frozenset[str], frozenset[str]]] = []
    for source in sources:
        cell = _cell(source)
        if cell is _NOT_PYTHON and not future and not ipython_syntax(source):
            continue  # the learner's syntax error: the cell runs nothing, in a plain shell as in IPython's
        if cell is None or cell is _NOT_PYTHON:  # IPython syntax, a star import, a cell nested too deep
            return lambda name: None
        statements += cell
    bound = set().union(*(b for _, b in statements))
    joined: dict[str, set[str]] = {}
    for names, _ in statements:
        for name in names & bound:  # a builtin or a name nobody binds joins nothing: it is checked where reached
            joined.setdefault(name, set()).update(names)
    cache: dict[str, frozenset[str] | None] = {}

    def reach(name: str) -> frozenset[str] | None:
        if name not in cache:
            cache[name] = _closure(name, joined)
        return cache[name]

    return reach


_NOT_PYTHON: _Cell = ((frozenset({_UNKNOWN}), frozenset()),)
"""What :func:`_cell` gives for a cell that does not parse as Python: IPython syntax, or the learner's slip."""


@functools.lru_cache(maxsize=4096)
def _cell(source: str) -> _Cell | None:
    """The names each top-level statement of one cell joins (:func:`_read`); :data:`_NOT_PYTHON` if the cell does
    not parse, None if it cannot be followed. Kept per source: the cells a lesson gives and most learners leave as
    they are are read once per process."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _NOT_PYTHON
    except (ValueError, RecursionError, MemoryError):  # a null byte, a cell nested too deep
        return None
    try:
        return tuple((frozenset(names), frozenset(bound)) for names, bound in map(_read, tree.body))
    except (_StarImport, RecursionError):
        return None


def _closure(name: str, joined: dict[str, set[str]]) -> frozenset[str] | None:
    if name not in joined:
        return None  # not a name the notebook binds: nothing to read
    seen, todo = {name}, [name]
    while todo:
        for other in joined[todo.pop()]:
            if other in seen:
                continue
            if other not in joined and (other == _UNKNOWN or other in OPAQUE_NAMES or not hasattr(builtins, other)):
                return None  # a lookup by string, or a name the notebook never binds (the grader's helpers)
            seen.add(other)
            if other in joined:  # else a builtin the notebook does not rebind: nothing of the notebook's behind it
                todo.append(other)
    return frozenset(seen)


class _StarImport(Exception):
    """``from module import *`` binds names no reading can list."""


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
    """The names a top-level ``statement`` joins, and those of them it binds.

    It joins the global names it can look up when it runs or when anything it defines is called (nested functions,
    lambdas, classes, decorators and defaults included) and the names it binds at the top level (or declares
    ``global`` anywhere); with :data:`_UNKNOWN` for what cannot be followed."""
    bound = _bound_at_top([statement])
    names = _free_in([statement], set()) | bound
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                names.add(_UNKNOWN)  # __builtins__, __loader__, __name__, a class-private __x (mangled)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("__") or node.attr in OPAQUE_ATTRIBUTES:
                names.add(_UNKNOWN)
        elif isinstance(node, ast.MatchClass):
            if any(a.startswith("__") or a in OPAQUE_ATTRIBUTES for a in node.kwd_attrs):
                names.add(_UNKNOWN)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "__" in node.value or any(a in node.value for a in OPAQUE_ATTRIBUTES):
                names.add(_UNKNOWN)  # a lookup by string: attrgetter("__globals__"), "{0.__globals__}".format(f)
        elif isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] not in SAFE_MODULES for alias in node.names):
                names.add(_UNKNOWN)
        elif isinstance(node, ast.ImportFrom):
            if any(alias.name == "*" for alias in node.names):
                raise _StarImport
            if node.level or (node.module or "").split(".")[0] not in SAFE_MODULES:
                names.add(_UNKNOWN)
        elif isinstance(node, ast.Global):
            names.update(node.names)  # global wherever declared, whatever the enclosing functions bind
            bound.update(node.names)
        elif isinstance(node, ast.ClassDef):
            names |= _class_lookups(node)
    return names, bound


def _bound_at_top(nodes: list[ast.AST]) -> set[str]:
    """The names top-level code binds in the notebook's namespace."""
    return _bindings(nodes)[0]


def _class_lookups(cls: ast.ClassDef) -> set[str]:
    """The names a class body both binds and loads (not in its methods): Python looks them up in the class, then
    in the globals, skipping any enclosing function's locals, so they are global lookups wherever it sits."""
    loaded, stored, _ = _class_scope(cls)
    return loaded & stored


def _class_scope(cls: ast.ClassDef) -> tuple[set[str], set[str], set[str]]:
    """A class body's own loads and stores (decorators and defaults of what it defines included), and the free
    names of the scopes nested in it (its methods': those skip the class's names)."""
    loaded: set[str] = set()
    stored: set[str] = set()
    nested: set[str] = set()
    todo: list[ast.AST] = list(cls.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
            continue
        if isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stored.add(node.name)
            nested |= _free_of_scope(node)
            todo.extend(_evaluated_outside(node))
            continue
        todo.extend(ast.iter_child_nodes(node))
    return loaded, stored, nested


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
        # A name the class binds is the class's own where its body loads it (else a global: _class_lookups), and
        # never what the functions inside it look up: those skip the class's names.
        loaded, stored, nested = _class_scope(scope)
        return (loaded - stored) | nested
    if isinstance(scope, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        parts: list[ast.AST] = [scope.elt] if not isinstance(scope, ast.DictComp) else [scope.key, scope.value]
        targets: set[str] = set()
        for i, generator in enumerate(scope.generators):
            parts += ([] if i == 0 else [generator.iter]) + list(generator.ifs)
            targets |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        return _free_in(parts, targets)
    return set()


def _locals_of(body: list[ast.AST]) -> set[str]:
    """The names one function's own body binds and does not declare ``global`` or ``nonlocal``: its locals."""
    stored, declared = _bindings(body)
    return stored - declared


def _bindings(nodes: list[ast.AST]) -> tuple[set[str], set[str]]:
    """The names one scope's own code binds (not entering the scopes nested in it, whose own names and the parts
    evaluated outside them count), and those it declares ``global`` or ``nonlocal``. A walrus inside a
    comprehension binds in this scope and is not counted: a name so bound is free, never taken for local."""
    stored: set[str] = set()
    declared: set[str] = set()
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                stored.add(node.id)
            continue
        if isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stored.add(node.name)
            todo.extend(_evaluated_outside(node))
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
    return stored, declared
