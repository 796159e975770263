"""Every kernel of the compiler states the shapes and dtypes of its arrays in its docstring
(issue 21; QuantEcon's habit): one line per array argument,

    name: dtype[dims] — what it holds

with named dimensions (`state: int32[n_cells + 4]`, `lengths, winners: int32[games]`; codes.py
names them); a record of arrays is `P: Program`, `tables: Tables`, or `work: tuple — ...`. A
kernel that returns an array says so on a line of the same form after `->`.

The kernels are found, not listed: every numba Dispatcher a compiler module holds (jit.kernel,
jit.inline, jit.leaf), and every one closed over by another (what the factories of ply.py and
ends.end_rule make inside). An argument is an array (or a record or tuple of them) when the
kernel indexes it, reads an attribute of it (`.shape`, a table by name), unpacks it, or hands it
on where another kernel takes one; it returns one when it returns what numpy makes, a slice, a
record of tables, or what such a kernel returns.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
import textwrap

import pytest
from numba.core.dispatcher import Dispatcher

from ludica import compiler

PACKAGE = compiler.__name__
# what a declaration line may state for an argument: a dtype with its shape, or a record of arrays
TYPED = re.compile(r"(?:u?int(?:8|16|32|64)|float(?:32|64)|bool)\[|(?:Program|Tables|tuple)\b")
DECLARED = re.compile(r"\s*(?:-> )?((?:\w+, )*\w+): (.*)")


def _defined(module) -> set[str]:
    """The names a module's own top-level code defines (not those it imports)."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _kernels() -> dict[str, Dispatcher]:
    """Every kernel of the compiler by the name a reader finds it under: module.name where the
    module defines it, and for one that a factory made inside, the kernel that closes over it."""
    found: dict[str, Dispatcher] = {}
    seen: set[int] = set()

    def visit(name: str, kernel: Dispatcher) -> None:
        if id(kernel) in seen:
            return
        seen.add(id(kernel))
        found[name] = kernel
        func = kernel.py_func
        for var, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
            if isinstance(cell.cell_contents, Dispatcher):
                visit(f"{name} > {var}", cell.cell_contents)

    for info in pkgutil.walk_packages(compiler.__path__, PACKAGE + "."):
        module = importlib.import_module(info.name)
        own = _defined(module)
        for attr, value in vars(module).items():
            if isinstance(value, Dispatcher) and attr in own:
                visit(f"{module.__name__.removeprefix(PACKAGE + '.')}.{attr}", value)
    return found


KERNELS = _kernels()


def _tree(kernel: Dispatcher) -> ast.FunctionDef:
    """The kernel's definition, parsed from its source (a factory's product dedented)."""
    node = ast.parse(textwrap.dedent(inspect.getsource(kernel.py_func))).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def _resolve(kernel: Dispatcher, node: ast.expr):
    """What a called name stands for in the kernel's module or closure (None if not found)."""
    func = kernel.py_func
    names = dict(func.__globals__)
    names.update((var, cell.cell_contents) for var, cell in zip(func.__code__.co_freevars, func.__closure__ or ()))
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _resolve(kernel, node.value)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


# answers by kernel (the kernel itself the key: an id could be reused by a kernel made later)
_ARRAYS: dict[Dispatcher, tuple[str, ...]] = {}


def array_arguments(kernel: Dispatcher) -> tuple[str, ...]:
    """The kernel's arguments that are arrays (or records or tuples of arrays), in order."""
    if kernel in _ARRAYS:
        return _ARRAYS[kernel]
    _ARRAYS[kernel] = ()  # a kernel calling itself (none does) would read nothing more
    tree = _tree(kernel)
    params = [a.arg for a in tree.args.args]
    arrays: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name):
            arrays.add(node.value.id)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            if any(isinstance(t, ast.Tuple) for t in node.targets):
                arrays.add(node.value.id)
        elif isinstance(node, ast.Call):
            callee = _resolve(kernel, node.func)
            if isinstance(callee, Dispatcher):
                takes = array_arguments(callee)
                theirs = [a.arg for a in _tree(callee).args.args]
                handed = list(zip(theirs, node.args)) + [(k.arg, k.value) for k in node.keywords]
                arrays.update(arg.id for param, arg in handed if isinstance(arg, ast.Name) and param in takes)
            elif isinstance(callee, type) and issubclass(callee, tuple):  # a record of tables (Program, Tables)
                handed = list(node.args) + [k.value for k in node.keywords]
                arrays.update(arg.id for arg in handed if isinstance(arg, ast.Name))
    _ARRAYS[kernel] = tuple(p for p in params if p in arrays)
    return _ARRAYS[kernel]


_MAKERS = {"empty", "zeros", "full", "arange", "array", "reshape"}  # numpy calls and methods that make an array
_RETURNS: dict[Dispatcher, bool] = {}


def returns_an_array(kernel: Dispatcher) -> bool:
    """Whether the kernel returns an array (or a record or tuple holding one): something numpy
    makes, a slice or a reshape of an array, a record of tables, or what another such kernel
    returns, directly or through a name bound to it."""
    if kernel in _RETURNS:
        return _RETURNS[kernel]
    _RETURNS[kernel] = False
    tree = _tree(kernel)

    def made(node: ast.expr) -> bool:
        if isinstance(node, ast.Subscript):
            sliced = any(isinstance(n, ast.Slice) for n in ast.walk(node.slice))
            return sliced or (isinstance(node.value, ast.Call) and made(node.value))
        if isinstance(node, ast.Call):
            callee = _resolve(kernel, node.func)
            if isinstance(callee, Dispatcher):
                return returns_an_array(callee)
            if isinstance(callee, type) and issubclass(callee, tuple):
                return True
            return isinstance(node.func, ast.Attribute) and node.func.attr in _MAKERS
        return False

    bound = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and made(node.value)
             for t in node.targets if isinstance(t, ast.Name)}

    def array(node: ast.expr) -> bool:
        if isinstance(node, ast.Tuple):
            return any(map(array, node.elts))
        return made(node) or (isinstance(node, ast.Name) and node.id in bound)

    _RETURNS[kernel] = any(array(node.value) for node in ast.walk(tree)
                           if isinstance(node, ast.Return) and node.value is not None)
    return _RETURNS[kernel]


def declarations(doc: str) -> dict[str, str]:
    """name → what its declaration line states first (`name: int32[n]` → "int32[n]")."""
    found = {}
    for line in doc.splitlines():
        m = DECLARED.fullmatch(line)
        if m:
            for name in m.group(1).split(", "):
                found[name] = m.group(2)
    return found


def results(doc: str) -> list[str]:
    """What the result lines (`-> name: dtype[dims] — ...`) of a docstring state, when typed."""
    return [m.group(2) for m in map(DECLARED.fullmatch, doc.splitlines())
            if m and m.group(0).lstrip().startswith("->") and TYPED.match(m.group(2))]


def test_the_kernels_are_found():
    names = set(KERNELS)
    # one of each kind: kernel, inline, leaf, a factory's product, a kernel a product closes over
    assert {"playouts.perft", "program.table1", "positions.status", "families.othello.step",
            "families.othello.step > describe"} <= names, sorted(names)
    assert len(KERNELS) > 90


def test_every_kernel_states_its_arrays():
    problems = []
    for name, kernel in sorted(KERNELS.items()):
        doc = inspect.getdoc(kernel.py_func)
        arrays = array_arguments(kernel)
        if not doc:
            problems.append(f"{name}: no docstring")
            continue
        declared = declarations(doc)
        missing = [a for a in arrays if a not in declared]
        untyped = [a for a in arrays if a in declared and not TYPED.match(declared[a])]
        if missing:
            problems.append(f"{name}: no line `name: dtype[dims] — ...` for {', '.join(missing)}")
        if untyped:
            problems.append(f"{name}: no dtype[dims] (or Program, Tables, tuple) stated for {', '.join(untyped)}")
        if returns_an_array(kernel) and not results(doc):
            problems.append(f"{name}: returns an array, and no line `-> name: dtype[dims] — ...` says which")
    assert not problems, "kernels whose docstrings do not state their arrays:\n" + "\n".join(problems)


KERNELS_TO_READ = """
import numpy as np
from numba import njit


@njit
def indexed(a, n):
    return a[n]


@njit
def measured(t, n):
    return t.shape[0] + n


@njit
def unpacked(w, n):
    x, y = w
    return n


@njit
def scalars(n, m):
    return n + m


@njit
def handing_on(n, b):
    return indexed(b, n)


@njit
def making(n):
    out = np.zeros(n)
    return out, n


@njit
def slicing(a, n):
    return a[:n]
"""


@pytest.mark.parametrize("name, expected", [
    ("indexed", ("a",)), ("measured", ("t",)), ("unpacked", ("w",)), ("scalars", ()), ("handing_on", ("b",)),
])
def test_array_arguments_are_told_from_scalars(tmp_path, name, expected):
    assert array_arguments(getattr(_read(tmp_path), name)) == expected


@pytest.mark.parametrize("name, expected", [("making", True), ("slicing", True), ("indexed", False), ("scalars", False)])
def test_array_results_are_told_from_scalars(tmp_path, name, expected):
    assert returns_an_array(getattr(_read(tmp_path), name)) == expected


def _read(tmp_path):
    """KERNELS_TO_READ as a module of its own (inspect reads a kernel's source from its file)."""
    path = tmp_path / "kernels_to_read.py"
    path.write_text(KERNELS_TO_READ)
    spec = importlib.util.spec_from_file_location("kernels_to_read", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_declaration_must_state_a_dtype_and_shape():
    assert TYPED.match(declarations("Sum.\n\nstate: int32[n_cells + 4] — a position")["state"])
    assert TYPED.match(declarations("P: Program — the tables")["P"])
    assert not TYPED.match(declarations("state: a position")["state"])
    assert set(declarations("-> lengths, winners: int32[games] — written")) == {"lengths", "winners"}
    assert results("Sum.\n\n-> sets: int32[n_ends, n_cells + 4] — new") == ["int32[n_ends, n_cells + 4] — new"]
    assert not results("Sum.\n\nsets: int32[n_ends] — an argument, not a result")
