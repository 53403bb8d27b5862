"""The graph builders a module imports from other modules of the project, which the static
shape rules follow at their calls (analysis/static_shapes.py).

pkmital's denoising autoencoder corrupts its input with a helper of ``libs/utils.py``
before the layers' loop sizes each weight by the static shape of the layer before::

    from libs.utils import corrupt
    current_input = corrupt(x) * corrupt_prob + x * (1 - corrupt_prob)
    for layer_i, n_output in enumerate(dimensions[1:]):
        n_input = int(current_input.get_shape()[1])

TF1's shape inference went through ``corrupt``'s ops as through any other; the rules follow
its body as they follow a function of the file, in its own module (its TF imports, its
functions).  Only where the import is a top-level ``from module import name`` of a module
the project resolves, that the run reads as migrated, and the function is a graph builder
there (analysis/summaries.py: it makes no variables, changes no argument and no state of its
module), defined once at the top of that module with a body of its own; the module's text is
the one summarized (its digest checked).  Anything else is not followed: its result is
unknown, and whatever reads a shape off it stays refused.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import libcst as cst

from tf2migrate.analysis.names import names_bound
from tf2migrate.analysis.project import FileContext, ModuleSummary, text_digest
from tf2migrate.analysis.static_shapes import NO_IMPORTED, Imported
from tf2migrate.analysis.summaries import BUILDER
from tf2migrate.analysis.tf_imports import TfImports, collect_tf_imports, dotted_name


def imported_builders(module: cst.Module, project: FileContext | None) -> Mapping[str, Imported]:
    """The project's graph builders ``module``'s top-level ``from … import`` statements bind,
    by the name bound."""
    if project is None or not project.modules:
        return NO_IMPORTED
    found: dict[str, Imported] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            named = dotted_name(small.module) if small.module is not None else None
            source = "." * len(small.relative) + (named or "")
            summary = project.modules.get(source)
            if summary is None:
                continue
            for alias in small.names:
                name = dotted_name(alias.name)
                callee = _builder(summary, name) if name is not None else None
                if callee is not None:
                    bound = cst.ensure_type(alias.asname.name if alias.asname is not None else alias.name, cst.Name).value
                    found[bound] = Imported(callee[0], callee[1], callee[2], source)
    return found


def _builder(summary: ModuleSummary, name: str) -> tuple[cst.FunctionDef, cst.Module, TfImports] | None:
    """The ``def`` of ``name`` in the summarized module, the module and its TF imports, when
    the function is a graph builder defined once there; else None."""
    facts = summary.names.get(name)
    if facts is None or facts.kind != BUILDER or facts.changes_arguments or facts.changes_module_state:
        return None
    parsed = _parsed(summary.path, summary.text_digest)
    if parsed is None:
        return None
    functions = [s for s in parsed.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    # (every scope counted: a second binding anywhere may be the one a call reads)
    once = names_bound(parsed).count(name) == 1
    if len(functions) != 1 or not once or functions[0].decorators or not isinstance(functions[0].body, cst.IndentedBlock):
        return None
    return functions[0], parsed, collect_tf_imports(parsed)


@lru_cache(maxsize=32)
def _parsed(path: Path, digest: str) -> cst.Module | None:
    """The module at ``path`` as summarized (None when its text is another by now)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if text_digest(text) != digest:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        return None
