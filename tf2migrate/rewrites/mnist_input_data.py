"""``from tensorflow.examples.tutorials.mnist import input_data`` → TF1's MNIST reader written
out in the file (TFM414).

Hundreds of TF1 tutorials read MNIST with ``input_data.read_data_sets("MNIST_data/",
one_hot=True)``; TF2 ships no ``tensorflow.examples``, so such a file, its graph converted,
still cannot run.  This post-pass, run on the migrated text of a file whatever became of its
graph, replaces the import with TF 1.15's reader ported to numpy (rewrites/mnist_reader_port.py:
``TF1MnistDataSet`` and ``tf1_mnist_read_data_sets``, emitted once, renamed if the file uses
the names) and the calls ``input_data.read_data_sets(...)`` with ``tf1_mnist_read_data_sets(...)``.
The batches ``next_batch`` draws depend on numpy's generator, which TF1's ``DataSet`` reseeded
from the graph seed: where the module sets ``tf.set_random_seed(N)`` at top level before the
read (or before the function that reads), the call passes ``graph_seed=N``.

Kept (the import stays, with TFM403, and a TFM414 finding says why) when the reader cannot
be shown to draw what TF1 drew: ``fake_data`` (not ported), any other use of the module
(``input_data.DataSet``), a name bound again, a graph seed set in a function, conditionally,
after the reading function, or from an expression, and a seeded file that makes new graphs
(``tf.Graph()``, a reset in a function or a branch), whose seed at the read is not known; a
``tf.reset_default_graph()`` statement of the module is read in order with the seeds (a
notebook's first cell: a reset and then a seed), a read after it and no seed unseeded.
An unused import is removed.  The decisions are read from the original (its seeds, its
positions); the edits are made on the migrated text, whose reads must be the original's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, QualifiedNameProvider, ScopeProvider

from tf2migrate.analysis.names import fresh_name
from tf2migrate.diagnostics import Diagnostic, FixSafety, Rule, Severity
from tf2migrate.layout import parse_module
from tf2migrate.rewrites import mnist_reader_port as port
from tf2migrate.rewrites.compat_fallback import end_of_import_block, is_import_statement
from tf2migrate.rewrites.file_helpers import helper_definition

MNIST_READER = Rule(
    "TFM414",
    "mnist-reader-written-out",
    "tensorflow.examples.tutorials.mnist's input_data → TF1's MNIST reader written out in the file.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `from tensorflow.examples.tutorials.mnist import input_data` with a port of TF 1.15's reader "
    "(`TF1MnistDataSet`, `tf1_mnist_read_data_sets`: download into the directory, decoding, one-hot labels, "
    "validation split, `next_batch` with TF1's shuffling), emitted once per file, and "
    "`input_data.read_data_sets(...)` with `tf1_mnist_read_data_sets(...)`, given `graph_seed=N` where "
    "`tf.set_random_seed(N)` is in force at the read.  An unused import is removed.  Kept, with the reason, "
    "for `fake_data`, any other use of `input_data`, and graph seeds whose value at the read is not known "
    "(set in a function or conditionally, or with graphs reset).",
    why="TF2 has no `tensorflow.examples`: a tutorial whose graph converted still fails at its first import. "
    "Keras' `mnist.load_data()` returns other arrays (uint8, not flattened, no validation split) and no "
    "`next_batch`; the port draws the very batches TF1 drew, so the migrated program computes what the original did.",
    example='from tensorflow.examples.tutorials.mnist import input_data\nmnist = input_data.read_data_sets("MNIST_data/", one_hot=True)',
    instead="class TF1MnistDataSet:\n    ...\n\n\ndef tf1_mnist_read_data_sets(train_dir, one_hot=False, ...):\n    ...\n\n\n"
    'mnist = tf1_mnist_read_data_sets("MNIST_data/", one_hot=True)',
    invalid=(
        "import tensorflow as tf\n"
        "from tensorflow.examples.tutorials.mnist import input_data\n"
        'mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)\n',
    ),
    valid=("import tensorflow as tf\n(x_train, y_train), _ = tf.keras.datasets.mnist.load_data()\n",),
)
RULES = [MNIST_READER]

MODULE = "tensorflow.examples.tutorials.mnist"
_READ = "read_data_sets"
# TF1's read_data_sets(train_dir, fake_data, one_hot, dtype, reshape, validation_size, seed, source_url)
_TF1_PARAMETERS = ("train_dir", "fake_data", "one_hot", "dtype", "reshape", "validation_size", "seed", "source_url")
_PREFIXES = ("tensorflow.", "tensorflow.compat.v1.")
_SEEDS = frozenset(p + s for p in _PREFIXES for s in ("set_random_seed", "random.set_random_seed", "random.set_seed"))
_RESETS = frozenset(p + "reset_default_graph" for p in _PREFIXES)
_NEW_GRAPHS = _RESETS | frozenset(p + "Graph" for p in _PREFIXES)


@dataclass
class ReaderEdit:
    """What the post-pass made of a file: its new text, its TFM414 findings, and the line of
    the import it removed (whose TFM403 finding no longer holds), if it did."""

    new_source: str
    findings: list[Diagnostic]
    removed_import_line: int | None = None


def may_read_mnist(new_source: str) -> bool:
    """The cheap test: the migrated text names the module."""
    return MODULE in new_source


def write_out_reader(source: str, new_source: str, path: str) -> ReaderEdit | None:
    """The migrated text with the reader written out, or its findings when it is kept; None
    when the file imports no reader at its top level (or the original does not parse: a
    Python 2 file)."""
    try:
        original = _Reader.find(parse_module(source))
    except cst.ParserSyntaxError:
        return None
    if original is None:
        return None
    refusals = original.refusals()
    migrated = _Reader.find(parse_module(new_source))
    if not refusals and (migrated is None or len(migrated.calls) != len(original.calls) or migrated.others):
        refusals = [(original.statement, "the migration changed the reads of the module; kept as written")]
    if refusals:
        return ReaderEdit(new_source, [original.diagnostic(node, message, path) for node, message in refusals])
    assert migrated is not None
    seeds = [original.graph_seed(call) for call in original.calls]
    new_source = migrated.rewritten(seeds)
    line = original.position(original.statement)[0]
    if not original.calls:
        message = f"unused import of `{MODULE}` removed (TF2 has no tensorflow.examples)"
        return ReaderEdit(new_source, [original.diagnostic(original.statement, message, path)], line)
    findings = []
    for call, seed in zip(original.calls, seeds):
        seeded = f" with graph_seed={seed} (the tf.set_random_seed in force)" if seed is not None else ""
        message = (
            f"`{original.name}.{_READ}` → `{port.READ_DATA_SETS}`{seeded}: TF 1.15's MNIST reader written out "
            f"in the file (`{port.DATA_SET}`), emitted once"
        )
        findings.append(original.diagnostic(call, message, path))
    return ReaderEdit(new_source, findings, line)


@dataclass
class _Reader:
    """The reader's import at the top of a module, the name it binds, and where that name is read."""

    wrapper: MetadataWrapper
    statement: cst.SimpleStatementLine
    name: str
    calls: list[cst.Call] = field(default_factory=list)  # ``input_data.read_data_sets(...)``
    others: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # any other use, described
    unsupported: str | None = None  # why the import's form is not handled

    @classmethod
    def find(cls, module: cst.Module) -> _Reader | None:
        for statement in _import_sites(module):
            for small in statement.body:
                name = _bound_reader(small)
                if name is None:
                    continue
                wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
                reader = cls(wrapper, statement, name)
                if len(statement.body) > 1 or len(small.names) > 1:  # type: ignore[attr-defined]
                    reader.unsupported = "the import shares its statement with others; kept as written"
                elif reader._top_import() is None:
                    reader.unsupported = "the module imports nothing at its top, where the reader would be written; kept as written"
                else:
                    reader._read_uses(small)
                return reader
        return None

    def _read_uses(self, imported: cst.CSTNode) -> None:
        scopes = self.wrapper.resolve(ScopeProvider)
        parents = self.wrapper.resolve(ParentNodeProvider)
        scope = scopes[imported]
        assert scope is not None
        assignments = list(scope.assignments[self.name])
        for assignment in assignments:
            if getattr(assignment, "node", None) is not imported:
                self.others.append((assignment.node, f"`{self.name}` is bound again"))  # type: ignore[attr-defined]
        for assignment in assignments:
            for access in assignment.references:
                node = access.node
                parent = parents.get(node)
                if isinstance(parent, cst.Attribute) and parent.value is node:
                    call = parents.get(parent)
                    if parent.attr.value == _READ and isinstance(call, cst.Call) and call.func is parent:
                        self.calls.append(call)
                    else:
                        self.others.append((parent, f"`{self.name}.{parent.attr.value}` is used"))
                else:
                    self.others.append((node, f"`{self.name}` is used as a value"))
        self.calls.sort(key=self.position)
        self.others.sort(key=lambda other: self.position(other[0]))

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.wrapper.resolve(PositionProvider)[node].start
        return start.line, start.column

    def diagnostic(self, node: cst.CSTNode, message: str, path: str) -> Diagnostic:
        line, column = self.position(node)
        return Diagnostic(MNIST_READER.code, message, path, line, column + 1, MNIST_READER.severity)

    # -- the original: what keeps the reader, and the graph seed at each read

    def refusals(self) -> list[tuple[cst.CSTNode, str]]:
        if self.unsupported is not None:
            return [(self.statement, self.unsupported)]
        found = [(node, f"{what}: TF2 has no `{MODULE}`, kept as written") for node, what in self.others]
        for call in self.calls:
            why = _argument_refusal(call)
            if why is not None:
                found.append((call, f"`{self.name}.{_READ}` with {why}; kept as written"))
        if not self.calls:  # an unused import: removed whatever the seeds
            return sorted(found, key=lambda item: self.position(item[0]))
        seeds = self._seed_calls()
        graphs = self._graph_calls()
        for call, function, plain in seeds:
            at = f"`tf.set_random_seed` at line {self.position(call)[0]}"
            if function is not None:
                found.append(
                    (call, f"the graph seed is set in function `{function}` ({at}): the seed in force at the MNIST read is not known")
                )
            elif not plain:
                found.append((call, f"the graph seed is set conditionally ({at}): the seed in force at the MNIST read is not known"))
            elif _seed_code(call, self) is None:
                found.append((call, f"the graph seed is not a number or a module-level name ({at}); the MNIST reader is kept"))
        # ``tf.reset_default_graph()`` as a statement of the module (a notebook's first cell) is in
        # the seeds' order: a read after it and no seed has no graph seed, whatever was set before
        resets = {id(call) for call in self._calls_named(_RESETS)}
        unknown = [call for call, function, plain in graphs if not (function is None and plain and id(call) in resets)]
        if seeds and unknown:
            line = self.position(unknown[0])[0]
            found.append(
                (
                    unknown[0],
                    f"the file sets a graph seed and makes new graphs (line {line}): the seed in force at the MNIST read is not known",
                )
            )
        for call in self.calls:
            anchor = self._anchor(call)
            if anchor is not call:
                later = [s for s, _, _ in [*seeds, *(graphs if seeds else [])] if self.position(s) > self.position(anchor)]
                if later:
                    found.append(
                        (
                            call,
                            f"the graph seed is set or reset at line {self.position(later[0])[0]}, after the function that reads "
                            "MNIST is defined: the seed in force at the read depends on when it runs",
                        )
                    )
        return sorted(found, key=lambda item: self.position(item[0]))

    def graph_seed(self, call: cst.Call) -> str | None:
        """The code of the graph seed in force at the read (checked by :meth:`refusals`): the
        last seed set before it, unless the graph was reset since (then none)."""
        anchor = self.position(self._anchor(call))
        resets = {id(c) for c, _, _ in self._graph_calls()}
        before = sorted((c for c, _, _ in [*self._seed_calls(), *self._graph_calls()] if self.position(c) < anchor), key=self.position)
        return _seed_code(before[-1], self) if before and id(before[-1]) not in resets else None

    def _anchor(self, call: cst.Call) -> cst.CSTNode:
        """The read itself at module level, else the module-level definition holding it."""
        parents = self.wrapper.resolve(ParentNodeProvider)
        node: cst.CSTNode = call
        anchor: cst.CSTNode = call
        while node in parents:
            node = parents[node]
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                anchor = node
        return anchor

    def _calls_named(self, names: frozenset[str]) -> list[cst.Call]:
        finder = _CallsNamed(names)
        self.wrapper.visit(finder)
        return sorted(finder.found, key=self.position)

    def _seed_calls(self) -> list[tuple[cst.Call, str | None, bool]]:
        """Each ``tf.set_random_seed(...)``: the function it is in (None at module level), and
        whether it runs unconditionally (a statement of the module, or of its ``if __name__``)."""
        return self._placed(self._calls_named(_SEEDS))

    def _graph_calls(self) -> list[tuple[cst.Call, str | None, bool]]:
        """Each call making a new graph, placed as :meth:`_seed_calls` places seeds."""
        return self._placed(self._calls_named(_NEW_GRAPHS))

    def _placed(self, calls: list[cst.Call]) -> list[tuple[cst.Call, str | None, bool]]:
        """Each call: the function it is in (None at module level), and whether it runs
        unconditionally, a statement of its own (of the module, or of its ``if __name__``)."""
        parents = self.wrapper.resolve(ParentNodeProvider)
        out = []
        for call in calls:
            node: cst.CSTNode = call
            function, blocks = None, []
            while node in parents:
                node = parents[node]
                if isinstance(node, cst.FunctionDef) and function is None:
                    function = node.name.value
                elif isinstance(node, (cst.If, cst.For, cst.While, cst.Try, cst.With, cst.Lambda, cst.ClassDef)):
                    blocks.append(node)
            expression = parents.get(call)
            statement = parents.get(expression) if expression is not None else None  # Expr → SimpleStatementLine
            plain = isinstance(statement, cst.SimpleStatementLine) and all(_is_main_test(b) for b in blocks)
            out.append((call, function, plain))
        return out

    # -- the migrated text: the edits

    def rewritten(self, seeds: list[str | None]) -> str:
        module = self.wrapper.module
        in_use = set(re.findall(r"\w+", module.code))
        data_set = fresh_name(port.DATA_SET, in_use)
        read = fresh_name(port.READ_DATA_SETS, in_use)
        helpers: list[cst.BaseStatement] = []
        if self.calls:
            function_code = re.sub(rf"\b{port.DATA_SET}\b", data_set, port.READ_DATA_SETS_CODE)
            helpers = [
                helper_definition(module, port.DATA_SET, data_set, port.DATA_SET_CODE),
                helper_definition(module, port.READ_DATA_SETS, read, function_code),
            ]
        calls = {id(call): _new_call(call, read, seed) for call, seed in zip(self.calls, seeds)}
        top = self._top_import()
        assert top is not None  # else unsupported: refused
        return module.visit(_Edits(self.statement, end_of_import_block(module, top), helpers, calls)).code

    def _top_import(self) -> cst.BaseStatement | None:
        """The import itself at the module's top, else the first import there (the helpers
        go after the module's import block, wherever the reader was imported)."""
        body = self.wrapper.module.body
        if self.statement in body:
            return self.statement
        return next((s for s in body if is_import_statement(s)), None)


class _CallsNamed(cst.CSTVisitor):
    """The calls of any of ``names`` (qualified: ``tensorflow.set_random_seed``)."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self, names: frozenset[str]) -> None:
        super().__init__()
        self.names = names
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if any(q.name in self.names for q in self.get_metadata(QualifiedNameProvider, node, set())):
            self.found.append(node)


def _import_sites(module: cst.Module) -> list[cst.SimpleStatementLine]:
    """Where the reader's import is looked for: the module's statements, then those of the
    body of each top-level function and of ``if __name__ == "__main__":`` (tutorials import
    the reader in their ``main()``)."""
    sites = [s for s in module.body if isinstance(s, cst.SimpleStatementLine)]
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) or (isinstance(statement, cst.If) and _is_main_test(statement)):
            if isinstance(statement.body, cst.IndentedBlock):
                sites += [s for s in statement.body.body if isinstance(s, cst.SimpleStatementLine)]
    return sites


def _bound_reader(small: cst.BaseSmallStatement) -> str | None:
    """The name an import of the reader binds: ``from tensorflow.examples.tutorials.mnist
    import input_data [as x]`` or ``import tensorflow.examples.tutorials.mnist.input_data as x``."""
    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        if _dotted(small.module) == MODULE and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                if isinstance(alias.name, cst.Name) and alias.name.value == "input_data":
                    return _alias_name(alias) or "input_data"
    if isinstance(small, cst.Import):
        for alias in small.names:
            if _dotted(alias.name) == f"{MODULE}.input_data" and alias.asname is not None:
                return _alias_name(alias)
    return None


def _alias_name(alias: cst.ImportAlias) -> str | None:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return None


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def _is_main_test(block: cst.CSTNode) -> bool:
    """``if __name__ == "__main__":`` — its body runs when the script does."""
    return isinstance(block, cst.If) and "__name__" in cst.Module([]).code_for_node(block.test)


def _argument_refusal(call: cst.Call) -> str | None:
    for index, arg in enumerate(call.args):
        if arg.star:
            return "unpacked arguments"
        name = arg.keyword.value if arg.keyword is not None else (_TF1_PARAMETERS[index] if index < len(_TF1_PARAMETERS) else None)
        if name == "fake_data" and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
            return "`fake_data` (TF1's fake data sets are not ported)"
    return None


def _seed_code(call: cst.Call, reader: _Reader) -> str | None:
    """The seed's code when it means the same wherever the read is: a number, or a name the
    module binds once."""
    value = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "seed"), None)
    if value is None:
        return None
    code = cst.Module([]).code_for_node(value)
    number = value.expression if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) else value
    if isinstance(number, cst.Integer):
        return code
    if isinstance(value, cst.Name):
        scope = reader.wrapper.resolve(ScopeProvider)[reader.wrapper.module]
        if scope is not None and len(scope.assignments[value.value]) == 1:
            return code
    return None


def _new_call(call: cst.Call, name: str, seed: str | None) -> cst.Call:
    """``tf1_mnist_read_data_sets(...)``: positional arguments after the directory named
    (the port has no ``fake_data``, which is dropped: only ``False`` gets here), ``graph_seed`` added."""
    args: list[cst.Arg] = []
    for index, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else _TF1_PARAMETERS[index]
        if keyword == "fake_data":
            continue
        if arg.keyword is None and index > 0:
            arg = arg.with_changes(keyword=cst.Name(keyword), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        args.append(arg)
    if args:  # the last argument kept ends as the call's last did (a trailing comma or none)
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    if seed is not None:
        last = args[-1]
        added = cst.Arg(
            value=cst.parse_expression(seed),
            keyword=cst.Name("graph_seed"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            comma=last.comma,
        )
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(added)
    return call.with_changes(func=cst.Name(name), args=args)


class _Edits(cst.CSTTransformer):
    """Replaces the reads, removes the import (its comments go to the next statement) and
    writes the helpers after the import's block, two blank lines on either side."""

    def __init__(self, statement: cst.CSTNode, block_end: cst.CSTNode, helpers: list[cst.BaseStatement], calls: dict[int, cst.Call]):
        self.statement = statement
        self.block_end = block_end
        self.helpers = helpers
        self.calls = calls

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return self.calls.get(id(original_node), updated_node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        """An import in a function's body: removed there, its comments to the next statement
        (a body left empty gets ``pass``)."""
        if self.statement not in original_node.body:
            return updated_node
        body: list[cst.BaseStatement] = []
        comments: list[cst.EmptyLine] = []
        for original, updated in zip(original_node.body, updated_node.body):
            assert isinstance(updated, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
            if original is self.statement:
                comments = list(updated.leading_lines)
                continue
            body.append(updated.with_changes(leading_lines=[*comments, *updated.leading_lines]))
            comments = []
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=comments)]
        return updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body: list[cst.BaseStatement] = []
        comments: list[cst.EmptyLine] = []  # the removed import's
        pad = False  # the statement after the helpers
        for original, updated in zip(original_node.body, updated_node.body):
            if original is self.statement:
                comments = list(updated.leading_lines)
            else:
                leading = [*comments, *updated.leading_lines]
                if pad:
                    blank = next((i for i, line in enumerate(leading) if line.comment is not None), len(leading))
                    leading = [cst.EmptyLine(indent=False)] * max(0, 2 - blank) + leading
                body.append(updated.with_changes(leading_lines=leading))
                comments, pad = [], False
            if original is self.block_end and self.helpers:
                first = self.helpers[0]
                body += [first.with_changes(leading_lines=[*comments, *getattr(first, "leading_lines", [])]), *self.helpers[1:]]
                comments, pad = [], True
        return updated_node.with_changes(body=body)
