"""A census of how far tf2migrate converts real repositories.

    python benchmarks/census.py TREE [TREE ...] [--json] [--why] [--jobs N]

One tree per repository.  tf2migrate runs on every ``*.py`` and ``*.ipynb`` file of the
tree in memory (nothing is written), and every file that *needs migration* — one it would
change or reports an error on — is classified:

- **fully** TF2: the migrated text (read with ``ast``, so comments, strings and user names
  that merely look like TF do not count) names no ``Session``, no ``placeholder``, nothing
  under ``compat.v1``, nothing under ``tensorflow.contrib`` or ``tensorflow.examples``
  (TF2 has neither), and calls ``tf.gradients`` only where ``tf.function`` traces it: in
  a function decorated with ``@tf.function``, or in a function or method of the same file
  that only traced code calls (a derivative helper, TFM203: see :func:`_traced_functions`),
  or in one nothing calls that differentiates only values passed to it;
- **partial**: changed, but some of those remain;
- **kept**: its graph stays on TF1 semantics (TFM404);
- **error**: the file itself could not be migrated (TFM001–TFM005), or nothing changed and
  error findings were reported.

Files that do not mention TensorFlow, or are TF2 already and come out unchanged, do not
count.  ``--why`` prints what keeps files from converting, the reasons grouped by code and
message stem (:func:`stem`), most common first, with the number of files each one is met
in and the number it is the only reason of (what fixing it alone would unblock): for kept
files their TFM3xx findings, for partial files their warning and error findings and the
TF1 constructs left in the migrated text, for error files their error findings.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import warnings
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from pathlib import Path

from tf2migrate.diagnostics import Diagnostic, Severity
from tf2migrate.engine import FileResult, run
from tf2migrate.notebook import notebook_program

CATEGORIES = ("fully", "partial", "kept", "error")
FILE_ERRORS = frozenset({"TFM001", "TFM002", "TFM003", "TFM004", "TFM005"})
KEPT = "TFM404"
SESSIONS = frozenset({"Session", "InteractiveSession"})
PLACEHOLDERS = frozenset({"placeholder", "placeholder_with_default", "sparse_placeholder"})
# compat.v1 modules whose members are counted together (one reason, not one per flag)
_GROUPED = frozenset({"flags", "app", "logging", "gfile"})
_NONE: Mapping[str, bool] = MappingProxyType({})


@dataclass
class Verdict:
    """One file that needs migration: its category and, for --why, what held it back."""

    path: str
    category: str
    reasons: list[str] = field(default_factory=list)  # "TFM306 stem", one per finding
    leftovers: list[str] = field(default_factory=list)  # TF1 constructs in the migrated text


def classify(result: FileResult, elsewhere: Mapping[str, bool] = _NONE) -> Verdict | None:
    """The file's verdict, or None when it does not need migration."""
    codes = {d.code for d in result.findings}
    errors = [d for d in result.findings if d.severity is Severity.ERROR]
    path = str(result.path)
    if codes & FILE_ERRORS:
        return Verdict(path, "error", _reasons(d for d in result.findings if d.code in FILE_ERRORS))
    if KEPT in codes:
        return Verdict(path, "kept", _reasons(d for d in result.findings if d.code.startswith("TFM3")))
    if not result.changed:
        return Verdict(path, "error", _reasons(errors)) if errors else None
    left = tf1_left(result.new_text, notebook=result.path.suffix == ".ipynb", elsewhere=elsewhere)
    if left is None:  # the engine never returns unparsable text; counted rather than hidden
        return Verdict(path, "error", ["(migrated text does not parse)"])
    if not left:
        return Verdict(path, "fully")
    blocking = (d for d in result.findings if d.severity is not Severity.INFO)
    return Verdict(path, "partial", _reasons(blocking), left)


def _reasons(findings) -> list[str]:
    return [f"{d.code} {stem(d)}" for d in findings]


_CODE = re.compile(r"`([^`]*)`")


def stem(finding: Diagnostic) -> str:
    """The message without its particulars, so one construct met in many files counts as
    one reason: the hint after the first ``; `` goes, and code in backticks becomes `…`
    unless it names TensorFlow (``tf.X``, ``tensorflow.X``, ``placeholder``, ``Session``)
    or a dunder (``__init__``) rather than the user's own names."""
    text = finding.message.split("; ", 1)[0]
    return _CODE.sub(lambda m: m.group(0) if _names_tf(m.group(1)) else "`…`", text).strip()


def _names_tf(code: str) -> bool:
    return code.startswith(("tf.", "tensorflow", "__")) or code in SESSIONS | PLACEHOLDERS


def tf1_left(text: str, notebook: bool = False, elsewhere: Mapping[str, bool] = _NONE) -> list[str] | None:
    """The TF1 constructs the (migrated) text still names, one label per site; None when
    it does not parse.  ``elsewhere``: module functions that the other files of the run
    call, each with whether they call it only where tf.function traces it (a helper
    module's ``fwd_gradients``).  A notebook's code cells are read as one program, IPython masked,
    by tf2migrate.notebook's own helpers: exactly the program the migration read."""
    if notebook:
        text = notebook_program(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    finder = _TF1Finder(_tf_aliases(tree), *_traced_functions(tree, elsewhere))
    finder.visit(tree)
    return finder.found


def _tf_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name → the TensorFlow path it is bound to, from every import of the file."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for name in node.names:
                if name.name == "tensorflow" or name.name.startswith("tensorflow."):
                    if name.asname:
                        aliases[name.asname] = name.name
                    else:
                        aliases[name.name.split(".")[0]] = "tensorflow"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and f"{node.module}.".startswith("tensorflow."):
            for name in node.names:
                aliases[name.asname or name.name] = f"{node.module}.{name.name}"
    return aliases


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything else (calls, subscripts)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _resolve(node: ast.expr, aliases: dict[str, str]) -> str | None:
    parts = _dotted(node)
    if parts is None or parts[0] not in aliases:
        return None
    return ".".join([aliases[parts[0]], *parts[1:]])


def _is_tf_function(decorator: ast.expr, aliases: dict[str, str]) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return _resolve(target, aliases) == "tensorflow.function"


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _traced_functions(tree: ast.Module, elsewhere: Mapping[str, bool] = _NONE) -> tuple[set[ast.AST], set[ast.AST]]:
    """The function definitions tf.function traces: decorated ones, and those used only
    (and at least once) where tracing runs them — inside traced functions, or passed to a
    module function that calls that argument only inside traced functions (tf2migrate's
    ``minimize_with_scipy``).  A function is known by its name, a method by ``self.name``.
    This finds the derivative helpers tf2migrate leaves ``tf.gradients`` in (TFM203), with
    those that differentiate only their arguments and that nothing calls
    (:func:`_differentiates_arguments`).  Second, the other functions the file never uses
    (dead code here; other code may call them, eagerly or not: not counted as traced)."""
    aliases = _tf_aliases(tree)
    traced: set[ast.AST] = set()
    defs: dict[str, list[ast.AST]] = {}
    uses: dict[str, list[tuple[tuple[ast.AST, ...], tuple[ast.AST, int | str] | None]]] = {}
    module_functions = {n.name: n for n in tree.body if isinstance(n, _FUNCTIONS)}
    # a class of the module, called: its constructor takes the arguments (after ``self``)
    constructors = {
        n.name: init
        for n in tree.body
        if isinstance(n, ast.ClassDef)
        for init in n.body
        if isinstance(init, _FUNCTIONS) and init.name == "__init__"
    }
    attributes: set[str] = set()

    def walk(node: ast.AST, around: tuple[ast.AST, ...], in_class: bool, argument=None) -> None:
        if isinstance(node, _FUNCTIONS):
            if any(_is_tf_function(d, aliases) for d in node.decorator_list):
                traced.add(node)
            defs.setdefault(f"self.{node.name}" if in_class else node.name, []).append(node)
            around, in_class = (*around, node), False
        elif isinstance(node, ast.ClassDef):
            in_class = True
        elif isinstance(node, ast.Name):
            uses.setdefault(node.id, []).append((around, argument))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            if not isinstance(node.ctx, ast.Store):  # ``self.f = f`` sets it; a call reads it
                uses.setdefault(f"self.{node.attr}", []).append((around, argument))
            return
        elif isinstance(node, ast.Attribute):
            attributes.add(node.attr)  # ``model.method(...)``: a method used by its object's name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {**module_functions, **constructors}:
            callee = module_functions.get(node.func.id) or constructors[node.func.id]
            first = 1 if callee.name == "__init__" and node.func.id in constructors else 0  # after ``self``
            walk(node.func, around, in_class)
            for index, arg in enumerate(node.args):
                walk(arg, around, in_class, (callee, first + index))
            for keyword in node.keywords:
                walk(keyword.value, around, in_class, (callee, keyword.arg))
            return
        for child in ast.iter_child_nodes(node):
            walk(child, around, in_class)

    walk(tree, (), False)
    traced_code = ast.Pass()  # stands for the traced code of other modules that calls these
    traced.add(traced_code)
    for name, only_traced in elsewhere.items():
        uses.setdefault(name, []).append(((traced_code,) if only_traced else (), None))

    def runs_traced(around: tuple[ast.AST, ...], argument) -> bool:
        if traced.intersection(around):
            return True
        if argument is None:
            return False
        callee, slot = argument
        names = [a.arg for a in callee.args.posonlyargs + callee.args.args]
        name = names[slot] if isinstance(slot, int) and slot < len(names) else slot
        places = [around for around, _ in uses.get(name, []) if callee in around]
        kept = _stored_on_self(callee, name) if callee.name == "__init__" else None
        if kept is not None and len(places) == 1 and kept not in attributes:
            # PINNsNTK: ``PINN(..., operator, ...)``, ``self.operator = operator``, called as
            # ``self.operator(...)`` only in traced methods (and named nowhere as ``x.operator``)
            places = [around for around, _ in uses.get(f"self.{kept}", [])]
        return bool(places) and all(traced.intersection(p) for p in places)

    grown = True
    while grown:
        grown = False
        for key, functions in defs.items():
            # a parameter of the same name (``def __init__(self, operator)``) is another variable
            places = [p for p in uses.get(key, []) if not any(key in _parameters(f) for f in p[0])]
            if not set(functions) <= traced and places and all(runs_traced(*p) for p in places):
                traced.update(functions)
                grown = True
    unused = {
        function
        for key, functions in defs.items()
        if not uses.get(key) and key.removeprefix("self.") not in attributes
        for function in functions
    }
    # a derivative helper nothing calls (PINNs' ``fwd_gradients_1``) is traced wherever it
    # can work at all: its values come from its caller's graph (TFM203)
    traced |= {f for f in unused if _differentiates_arguments(f, aliases)}
    return traced, unused - traced


def _differentiates_arguments(function: ast.AST, aliases: dict[str, str]) -> bool:
    """Does the function take ``tf.gradients`` only of values its caller computed: each
    target (``ys``) a parameter, or a name bound from an earlier ``tf.gradients`` of the
    function (``g = tf.gradients(U, x, grad_ys=seed)[0]``, then ``tf.gradients(g, seed)``)?
    Such a helper computes nothing eagerly in any TF2 form — the computation it
    differentiates ran before it was called, where no tape watched — so ``tf.gradients``,
    valid where a tf.function traces it and an error eagerly, is its TF2 form, called or not."""
    known = _parameters(function)
    found = False
    for statement in getattr(function, "body", []):
        gradients = [
            c
            for c in ast.walk(statement)
            if isinstance(c, ast.Call) and _resolve(c.func, aliases) in ("tensorflow.gradients", "tensorflow.compat.v1.gradients")
        ]
        for call in gradients:
            ys = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "ys"), None)
            if not isinstance(ys, ast.Name) or ys.id not in known:
                return False
            found = True
        if gradients and isinstance(statement, ast.Assign):
            known |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return found


def _parameters(function: ast.AST) -> set[str]:
    arguments = getattr(function, "args", None)
    if arguments is None:
        return set()
    every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [a for a in (arguments.vararg, arguments.kwarg) if a]
    return {a.arg for a in every}


def _stored_on_self(init: ast.AST, parameter: str) -> str | None:
    """``attr`` when the constructor's statement ``self.attr = parameter`` keeps a parameter."""
    for statement in getattr(init, "body", []):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and isinstance(statement.value, ast.Name)
            and statement.value.id == parameter
        ):
            return target.attr
    return None


def _calls_elsewhere(results: list[FileResult]) -> dict[str, dict[str, bool]]:
    """Per module name (a file's stem), the functions of it that the other migrated files
    of the run import and call, each with whether they call it only inside functions
    tf.function traces."""
    calls: dict[tuple[str, str], list[bool]] = {}
    modules = {r.path.stem for r in results if r.path.suffix == ".py"}
    for result in results:
        if result.path.suffix != ".py" or "import" not in result.new_text:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(result.new_text)
        except (SyntaxError, ValueError):
            continue
        names: dict[str, tuple[str, str]] = {}  # ``b`` / ``U.a`` → (module, function)
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[-1] in modules:
                names.update({a.asname or a.name: (node.module.split(".")[-1], a.name) for a in node.names})
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[-1] in modules and (a.asname or "." not in a.name):
                        names.update({f"{a.asname or a.name}.*": (a.name.split(".")[-1], "*")})
        if names:
            _note_calls(tree, names, _traced_functions(tree)[0], calls)
    out: dict[str, dict[str, bool]] = {}
    for (module, function), flags in calls.items():
        out.setdefault(module, {})[function] = all(flags)
    return out


def _note_calls(tree: ast.Module, names: dict[str, tuple[str, str]], traced: set[ast.AST], calls) -> None:
    def walk(node: ast.AST, inside: bool) -> None:
        if isinstance(node, _FUNCTIONS):
            inside = inside or node in traced
        if isinstance(node, ast.Call):
            parts = _dotted(node.func)
            target = None
            if parts is not None and len(parts) == 1:
                target = names.get(parts[0])
            elif parts is not None and len(parts) == 2 and f"{parts[0]}.*" in names:
                target = (names[f"{parts[0]}.*"][0], parts[1])
            if target is not None:
                calls.setdefault(target, []).append(inside)
        for child in ast.iter_child_nodes(node):
            walk(child, inside)

    walk(tree, False)


class _TF1Finder(ast.NodeVisitor):
    """Collects labels of TF1 constructs: ``Session``, ``placeholder``, ``compat.v1.X``,
    ``contrib.X`` and ``examples.X``, ``tf.gradients`` outside traced functions (said apart
    in a function the file never uses)."""

    def __init__(self, aliases: dict[str, str], traced: set[ast.AST], unused: set[ast.AST]) -> None:
        self.aliases = aliases
        self.traced = traced
        self.unused = unused
        self.depth = 0  # how many traced functions enclose the current node
        self.in_unused = 0  # how many functions the file never uses enclose it
        self.found: list[str] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        inside = node in self.traced or any(_is_tf_function(d, self.aliases) for d in node.decorator_list)
        self.depth += inside
        self.in_unused += node in self.unused
        self.generic_visit(node)
        self.depth -= inside
        self.in_unused -= node in self.unused

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [f"import {a.name}" for a in node.names if ".compat.v1" in f"{a.name}."]
        self.found += [label for a in node.names if (label := _not_in_tf2(a.name))]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and node.level == 0:
            self.found += [f"from {node.module} import {a.name}" for a in node.names if _compat_v1(f"{node.module}.{a.name}")]
            self.found += [label for a in node.names if (label := _not_in_tf2(f"{node.module}.{a.name}"))]

    def visit_Call(self, node: ast.Call) -> None:
        path = _resolve(node.func, self.aliases)
        if path in ("tensorflow.gradients", "tensorflow.compat.v1.gradients") and not self.depth:
            self.found.append("tf.gradients in a function the file never calls" if self.in_unused else "tf.gradients outside tf.function")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _dotted(node) is None:
            self.generic_visit(node)  # the chain starts at a call or subscript
        else:
            self._name(_resolve(node, self.aliases))

    def visit_Name(self, node: ast.Name) -> None:
        self._name(self.aliases.get(node.id))

    def _name(self, path: str | None) -> None:
        if path is None:
            return
        last = path.rsplit(".", 1)[-1]
        if last in SESSIONS:
            self.found.append("Session")
        elif last in PLACEHOLDERS:
            self.found.append("placeholder")
        elif _compat_v1(path):
            self.found.append(_compat_label(path))
        elif label := _not_in_tf2(path):
            self.found.append(label)


def _compat_v1(path: str) -> bool:
    return f"{path}.".startswith("tensorflow.compat.v1.")


def _not_in_tf2(path: str) -> str | None:
    """``contrib.X (not in TF2)`` / ``examples.X (not in TF2)`` for a path under
    ``tensorflow.contrib`` or ``tensorflow.examples``: TF2 ships neither package, so a file
    that still imports or uses them cannot run on TF2 (the MNIST tutorials' ``input_data``)."""
    parts = path.split(".")
    if len(parts) < 2 or parts[0] != "tensorflow" or parts[1] not in ("contrib", "examples"):
        return None
    return ".".join(parts[1:3]) + " (not in TF2)"


def _compat_label(path: str) -> str:
    rest = path.split(".")[3:]
    if not rest:
        return "compat.v1 (module)"
    keep = 1 if rest[0] in _GROUPED or len(rest) == 1 else 2
    return "compat.v1." + ".".join(rest[:keep])


def census(tree: Path, jobs: int) -> list[Verdict]:
    """Every file of the tree that needs migration, with its verdict (paths relative to the tree)."""
    verdicts = []
    results = run([tree], jobs=jobs, progress=False)
    elsewhere = _calls_elsewhere(results)
    for result in results:
        verdict = classify(result, elsewhere.get(result.path.stem, _NONE))
        if verdict is not None:
            verdict.path = os.path.relpath(verdict.path, tree)
            verdicts.append(verdict)
    return verdicts


def counts(verdicts: list[Verdict]) -> dict[str, int]:
    tally = Counter(v.category for v in verdicts)
    return {"files": len(verdicts), **{c: tally[c] for c in CATEGORIES}}


def blockers(verdicts: list[Verdict], top: int = 20) -> dict[str, list[dict]]:
    """The most common reasons per group, counted in files (a reason met twice in a file
    counts once), with how many files it is the only reason of: what fixing it alone
    would unblock."""
    groups = {
        "kept (TFM3xx findings)": [v.reasons for v in verdicts if v.category == "kept"],
        "partial (findings)": [v.reasons for v in verdicts if v.category == "partial"],
        "partial (TF1 left in the output)": [v.leftovers for v in verdicts if v.category == "partial"],
        "error": [v.reasons for v in verdicts if v.category == "error"],
    }
    result = {}
    for name, lists in groups.items():
        files = Counter(r for reasons in lists for r in set(reasons))
        only = Counter(next(iter(set(reasons))) for reasons in lists if len(set(reasons)) == 1)
        result[name] = [{"reason": r, "files": n, "only": only[r]} for r, n in files.most_common(top)]
    return result


def _row(name: str, c: dict[str, int]) -> str:
    share = f"{100 * c['fully'] / c['files']:.0f} %" if c["files"] else "-"
    return f"{name:<28}{c['files']:>7}" + "".join(f"{c[k]:>9}" for k in CATEGORIES) + f"{share:>10}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="one tree per repository")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--why", action="store_true", help="the blocking reasons of kept and partial files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    per_tree = {str(tree): census(tree, args.jobs) for tree in args.trees}
    every = [v for verdicts in per_tree.values() for v in verdicts]
    if args.json:
        document = {
            "repositories": {t: {"counts": counts(v), "files": [asdict(x) for x in v]} for t, v in per_tree.items()},
            "total": counts(every),
            "blockers": blockers(every),
        }
        json.dump(document, sys.stdout, indent=2)
        print()
        return
    print(f"{'repository':<28}{'files':>7}" + "".join(f"{k:>9}" for k in CATEGORIES) + f"{'% fully':>10}")
    for tree, verdicts in per_tree.items():
        print(_row(Path(tree).name, counts(verdicts)))
    print(_row("total", counts(every)))
    if args.why:
        for group, reasons in blockers(every).items():
            if not reasons:
                continue
            print(f"\n{group}: files with the reason, files with only that reason")
            for entry in reasons:
                print(f"{entry['files']:>6}{entry['only']:>6}  {entry['reason']}")


if __name__ == "__main__":
    main()
