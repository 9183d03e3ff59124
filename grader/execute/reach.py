"""Which of a notebook's global names each of its functions can reach: read from its code, never run.

A hidden test calls a learner's function with every earlier question's reference standing in for the learner's own
(:meth:`grader.testing.Learner.call`, so one bug costs once). Each stand-in crosses the channel on every call, and
a call with any stand-in takes the worker's slower path (its arguments snapshotted, its namespace swapped), though
most functions call none of them: a Decode notebook's calls carried ~860 stand-ins, of which its code named ~100.
A stand-in the function cannot reach changes nothing, so it is not sent.

"Can reach" is read from the notebook's source (the trusted side has it), and errs toward sending: a name is left
out only when no path through the notebook's code that this reading knows of can look it up.

- Each top-level statement is read once: the global names it mentions (a function's or a class's own code
  included, its parameters and locals not: they are scoped as Python scopes them), the names it binds at the top
  level, and each module it imports anywhere (every import of a module is the same object). Every one of those is
  joined to all the others, both ways: a statement may call a function, or hang code on an object
  (``REGISTRY.append(lambda: step())``, ``f.cb = ...``, ``math.cb = ...``, a decorator that registers), so what it
  mentions can lead to any of the rest. The reach of ``f`` is everything joined to ``f``, followed to the end.
- Nothing is known, and every stand-in is sent, when a reach holds a way to look a global up by a string or through
  an object's insides: a name of :data:`OPAQUE_NAMES`, any name or attribute that begins with two underscores
  (``__dict__``, ``__globals__``, ``__loader__``, a class-private ``__x``), an attribute of
  :data:`OPAQUE_ATTRIBUTES` (a frame's), such a name in a string or bytes, ``.format`` of a string not written
  out, a class pattern (``__match_args__``), an import of a module outside :data:`SAFE_MODULES` (its code is not
  read here), a builtin code can hang things on (``license``), a name IPython rebinds (``_``, ``Out``), or a name
  the notebook never binds that is not a builtin (the grader's helpers). So is the whole notebook when a cell is
  IPython syntax (a magic), imports ``*``, binds a ``__name`` at the top level (``__builtins__``), or defines code
  the garbage collector runs in the middle of any call (``__del__``, a generator closed inside ``try``).
- A cell that is neither Python nor IPython syntax is the learner's syntax error, which runs nothing
  (:func:`grader.execute.cells.runs_nothing`, the worker's own rules), and is passed over, unless a future import
  somewhere could make it parse.

Two reviews looked for ways to reach a name unseen and found 50 (code hung on shared objects, nested ``global``,
class bodies, name mangling, lookups by strings built at run time, finalizers, cells that only look broken);
``tests/test_reach.py`` runs 40 of them (the others vary these) and requires the reach to hold the name or nothing
to be known. Only how a call
is made depends on this: if a way remains, a notebook whose code took it would have its own earlier function
called, instead of the reference, by a later question's tests. That can cost only that learner's own answer (a
wrong earlier function costing twice), never earn a point: the stand-ins a test passes itself are always sent.
"""

from __future__ import annotations

import ast
import builtins
import functools
import string
import types
from collections.abc import Callable, Sequence

from grader.execute.cells import is_ipython_name, runs_nothing

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
        if cell is _NOT_PYTHON and not future and runs_nothing(source):
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
    except (_Unfollowable, RecursionError):
        return None


def _closure(name: str, joined: dict[str, set[str]]) -> frozenset[str] | None:
    if name not in joined:
        return None  # not a name the notebook binds: nothing to read
    seen, todo = {name}, [name]
    while todo:
        for other in joined[todo.pop()]:
            if other in seen:
                continue
            if other not in joined and (other == _UNKNOWN or other in OPAQUE_NAMES or not _inert_builtin(other)):
                return None  # a lookup by string, a name the notebook never binds (the grader's helpers), or a
                # builtin that holds what code hangs on it (``license.cb = ...``)
            seen.add(other)
            if other in joined:  # else a builtin the notebook does not rebind: nothing of the notebook's behind it
                todo.append(other)
    return frozenset(n for n in seen if not n.startswith(_MODULE))


def _inert_builtin(name: str) -> bool:
    """Whether ``name`` is a builtin no code can hang anything on: a builtin function, a builtin type, a constant
    (not ``license``, ``credits``, ``exit``: objects of Python classes that ``site`` adds)."""
    value = getattr(builtins, name, _MISSING)
    if isinstance(value, types.BuiltinFunctionType):
        return True
    if isinstance(value, type):
        return value.__module__ == "builtins"
    return value is None or value is Ellipsis or value is NotImplemented or type(value) in (bool, int, str)


_MISSING = object()


class _Unfollowable(Exception):
    """What makes a cell unfollowable: ``from module import *`` binds names no reading can list; a ``__name``
    bound at the top level may be ``__builtins__``, every later function's builtins; a ``__del__`` method, or a
    generator that can be closed inside ``try`` or ``with``, runs code whenever the garbage collector runs, in the
    middle of any call."""


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
    lambdas, classes, decorators and defaults included), the names it binds at the top level (or declares ``global``
    anywhere), and a name for each module it imports anywhere (every import of a module gives the same object);
    with :data:`_UNKNOWN` for what cannot be followed."""
    bound = _bound_at_top([statement])
    names = _free_in([statement], set()) | bound
    if any(b.startswith("__") for b in bound):
        raise _Unfollowable  # __builtins__ rebound (by a class, an import, a pattern): every later function's builtins
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                names.add(_UNKNOWN)  # __builtins__, __loader__, __name__, a class-private __x (mangled)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("__") or node.attr in OPAQUE_ATTRIBUTES or _formats_by_string(node):
                names.add(_UNKNOWN)
        elif isinstance(node, ast.MatchClass):
            names.add(_UNKNOWN)  # its positional patterns read attributes named by the class's __match_args__
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            if "__" in text or any(a in text for a in OPAQUE_ATTRIBUTES):
                names.add(_UNKNOWN)  # a lookup by string: attrgetter("__globals__"), "{0.__globals__}".format(f)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
                raise _Unfollowable
            roots = (
                [alias.name.split(".")[0] for alias in node.names]
                if isinstance(node, ast.Import)
                else ["." if node.level else (node.module or "").split(".")[0]]
            )
            if any(root not in SAFE_MODULES for root in roots):
                names.add(_UNKNOWN)
            modules = {f"{_MODULE}{root}" for root in roots}
            names |= modules
            bound |= modules
        elif isinstance(node, ast.Global):
            names.update(node.names)  # global wherever declared, whatever the enclosing functions bind
            bound.update(node.names)
        elif isinstance(node, ast.ClassDef):
            names |= _class_lookups(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _runs_when_collected(node):
            raise _Unfollowable
    if any(is_ipython_name(name) for name in names):
        names.add(_UNKNOWN)  # ``_`` and its kin are rebound by the display hook, by no statement
    return names, bound


_TRY_STAR = getattr(ast, "TryStar", ast.Try)  # ``try ... except*``, Python 3.11 on
_MODULE = "\0module "
"""Prefixes a module's name among a statement's names: each import of it, anywhere, is the same object."""


def _formats_by_string(node: ast.Attribute) -> bool:
    """Whether ``node`` is ``.format`` or ``.format_map`` of anything but a constant string whose fields read no
    attribute or item: ``"{0.__globals__[helper]}".format(f)`` looks a name up by a string built at run time."""
    if node.attr not in ("format", "format_map"):
        return False
    value = node.value
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return True
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(value.value) if field]
    except ValueError:
        return True
    return any("." in field or "[" in field for field in fields)


def _runs_when_collected(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the garbage collector may run this function's code in the middle of any call: a ``__del__``, or a
    generator with a ``try`` or ``with`` its closing would finish."""
    if function.name == "__del__":
        return True
    body = [n for n in ast.walk(function) if not isinstance(n, ast.Lambda)]
    yields = any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in body)
    return yields and any(isinstance(n, (ast.Try, _TRY_STAR, ast.With, ast.AsyncWith)) for n in body)


def _bound_at_top(nodes: list[ast.AST]) -> set[str]:
    """The names top-level code binds in the notebook's namespace."""
    return _bindings(nodes)[0]


def _class_lookups(cls: ast.ClassDef) -> set[str]:
    """The names a class body both binds and loads (not in its methods): Python looks them up in the class, then
    in the globals, skipping any enclosing function's locals, so they are global lookups wherever it sits."""
    loaded, stored, _ = _class_scope(cls)
    return loaded & stored


def _class_scope(cls: ast.ClassDef) -> tuple[set[str], set[str], set[str]]:
    """A class body's own loads (an augmented assignment loads too) and bindings (decorators and defaults of what it
    defines included), and the free names of the scopes nested in it (its methods': those skip the class's names)."""
    loaded: set[str] = set()
    nested: set[str] = set()
    todo: list[ast.AST] = list(cls.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.add(node.id)
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            loaded.add(node.target.id)
        if isinstance(node, _SCOPES):
            nested |= _free_of_scope(node)
            todo.extend(_evaluated_outside(node))
            continue
        todo.extend(ast.iter_child_nodes(node))
    return loaded, _bindings(list(cls.body))[0], nested


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
            parts += ([] if i == 0 else [generator.iter]) + [generator.target, *generator.ifs]  # ``for x.a in``
            targets |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name) and _stored(n)}
        return _free_in(parts, targets)
    return set()


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _stored(name: ast.Name) -> bool:
    return not isinstance(name.ctx, ast.Load)


def _walrus_targets(comprehension: ast.AST) -> set[str]:
    """The names a walrus binds inside a comprehension (and the comprehensions in it, not its lambdas): they bind in
    the scope around it."""
    found: set[str] = set()
    todo = list(ast.iter_child_nodes(comprehension))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        if not isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _locals_of(body: list[ast.AST]) -> set[str]:
    """The names one function's own body binds and does not declare ``global`` or ``nonlocal``: its locals."""
    stored, declared = _bindings(body)
    return stored - declared


def _bindings(nodes: list[ast.AST]) -> tuple[set[str], set[str]]:
    """The names one scope's own code binds (not entering the scopes nested in it, whose own names and the parts
    evaluated outside them count, and a walrus inside a comprehension, which binds here), and those it declares
    ``global`` or ``nonlocal``."""
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
            elif isinstance(node, _COMPREHENSIONS):
                stored |= _walrus_targets(node)  # a walrus in a comprehension binds in this scope
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
