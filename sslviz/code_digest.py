"""The code behind a result: a digest of the sslviz modules that compute it.

Every cached result (:class:`sslviz.cache.ResultCache`: the user's cache and the results stored
with the project) is keyed by the digest of the module that computes it *and of every sslviz
module that module imports, transitively* -- found by reading the ``import`` statements, not
typed by hand. A change to ``sslviz/em.py`` therefore changes the key of every result that code
behind ``sslviz.em`` computes, and a stale entry is never read.

What counts as a change: the module's source with its comments, docstrings and blank lines
removed (so rewording a docstring keeps every result). What does not count: modules that store or
move results but never compute them (:data:`CARRIERS`: the cache, the runner, the paths, the
atomic writer, the command-line helpers) -- they are neither digested nor followed.

A dependency's behaviour (scikit-learn, numpy) is not part of the digest; a writer that must
invalidate its results for such a reason bumps its module's ``RESULT_VERSION``.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import io
import sys
import textwrap
import tokenize
from pathlib import Path

__all__ = ["CARRIERS", "PACKAGE", "closure", "code_digest", "code_of", "normalized_source"]

PACKAGE = "sslviz"
PACKAGE_ROOT = Path(__file__).resolve().parent

#: Modules that carry results without computing them: a change there changes no number.
CARRIERS = frozenset({
    "sslviz.cache",  # the cache itself (keys and files)
    "sslviz.code_digest",  # this module
    "sslviz.experiments.runner",  # runs jobs, stores their results
    "sslviz.paths",  # where folders are
    "sslviz._io",  # atomic writes
    "sslviz.cli",  # command-line parsing and messages
})


def module_file(name, root=PACKAGE_ROOT):
    """The source file of module ``name`` (``sslviz.x.y``) under ``root``, or ``None``."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = Path(root).joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(name, root):
    """The sslviz modules that module ``name`` imports (anywhere in its body)."""
    path = module_file(name, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            # "from . import em": em is a module; "from .em import X": X is a name in em
            submodules = {f"{base}.{alias.name}" for alias in node.names} & _existing(root)
            found.update(submodules)
            if len(submodules) < len(node.names):
                found.add(base)
    return {module for module in found
            if module.split(".")[0] == PACKAGE and module_file(module, root) is not None}


@functools.cache
def _existing(root):
    """The names of every module of the package under ``root``."""
    root = Path(root)
    names = set()
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        names.add(".".join((PACKAGE, *parts)))
    return frozenset(names)


def _absolute(module, level, package):
    if level == 0:
        return module
    parts = package.split(".")
    base = ".".join(parts[:len(parts) - level + 1])
    return f"{base}.{module}" if module else base


def closure(name, root=PACKAGE_ROOT):
    """``name`` and every sslviz module it imports, transitively, without the carriers; sorted."""
    if module_file(name, root) is None:
        raise ValueError(f"{name!r} is not a module of the {PACKAGE} package under {root}")
    seen, todo = set(), [name]
    while todo:
        module = todo.pop()
        if module in seen or module in CARRIERS:
            continue
        seen.add(module)
        todo.extend(_imports(module, root))
    return sorted(seen)


def normalized_source(text):
    """``text`` (Python source) without comments, docstrings, blank lines and trailing blanks."""
    lines = text.splitlines()
    for (row, col), (end_row, end_col) in sorted(_docstring_spans(text), reverse=True):
        first, last = lines[row - 1], lines[end_row - 1]
        lines[row - 1:end_row] = [first[:col] + last[end_col:]]
    for row, col in sorted(_comment_starts("\n".join(lines)), reverse=True):
        lines[row - 1] = lines[row - 1][:col]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _docstring_spans(text):
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                string = body[0]
                yield (string.lineno, string.col_offset), (string.end_lineno,
                                                           string.end_col_offset)


def _comment_starts(text):
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start


def _file_digest(path):
    return hashlib.sha256(normalized_source(Path(path).read_text(encoding="utf-8"))
                          .encode()).hexdigest()


@functools.cache
def code_digest(name, root=PACKAGE_ROOT):
    """A 16-hex-digit digest of the normalized sources of :func:`closure` (``name``).

    Computed once per process (sources edited while it runs are seen after a restart, as the
    code itself is)."""
    digest = hashlib.sha256()
    for module in closure(name, root):
        digest.update(f"{module}\n{_file_digest(module_file(module, root))}\n".encode())
    return digest.hexdigest()[:16]


def code_of(code):
    """The ``{"module": name, "digest": ...}`` a cache key carries for ``code``: a module name,
    a module, or a function or class (its defining module).

    An sslviz module is digested with everything it imports (:func:`code_digest`); a module of
    one's own (a notebook's helper, a test) by its own source only."""
    name = code if isinstance(code, str) else getattr(code, "__module__", None)
    if not isinstance(name, str):  # a module object
        name = getattr(code, "__name__", None)
    if not isinstance(name, str):
        raise ValueError(f"the code behind a cached result is a module, or a function or class "
                         f"defined in one; got {code!r}")
    if name.split(".")[0] == PACKAGE:
        return {"module": name, "digest": code_digest(name)}
    return {"module": name, "digest": _outside_digest(name, code)}


def _outside_digest(name, code):
    """The digest of a module outside the package: its file, else the object's own source."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if path and str(path).endswith(".py"):
        return _file_digest(path)[:16]
    try:
        source = inspect.getsource(code)
    except (OSError, TypeError):
        raise ValueError(f"cannot read the source of {code!r} (module {name!r}), so its results "
                         "cannot be cached: define it in a .py file or a notebook cell") from None
    return hashlib.sha256(normalized_source(textwrap.dedent(source)).encode()).hexdigest()[:16]
