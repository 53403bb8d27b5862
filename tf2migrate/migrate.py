"""One file's source in, migrated source and findings out.

read → prefilter → parse (once) → analyse (once) → plan (rewrites) → apply → check.
All-or-nothing: if any blocker was found, the source comes back unchanged with a finding
per blocking site.  The output is re-parsed before it is returned; a rewrite that
produced invalid code is an internal error, never a written file.
"""

from __future__ import annotations

import ast
import contextvars
import dataclasses
import functools
import re
import sys
import warnings
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import libcst as cst

from tf2migrate.analysis.blockers import CLASS_BASED_GRAPH, GRAPH_GROWS_PER_CALL, GRAPH_VALUE_OUTSIDE_RUN, VARIABLE_IN_COMPUTATION
from tf2migrate.analysis.edit_sites import edit_words, quiet_statements
from tf2migrate.analysis.lookup_tables import one_table_lookups
from tf2migrate.analysis.dropped_python_values import find_dropped_python_values
from tf2migrate.analysis.escapes import ASSERT_EVALUATED, find_escapes
from tf2migrate.analysis.imported_helpers import imported_builders
from tf2migrate.analysis.graph import NodeIndex, analyze, index_module
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.module_facts import ModuleFacts, module_facts
from tf2migrate.analysis.python2_semantics import PYTHON2_SEMANTICS, may_read_python2_names, python2_names, python2_semantics
from tf2migrate.analysis.shared_variables import find_shared_variables
from tf2migrate.analysis.statements import MIXED_BLOCK
from tf2migrate.analysis.star_imports import changed_names_used, tf_star_imports
from tf2migrate.analysis.project import FileContext, local_summaries, own_net_objects, own_session_factories
from tf2migrate.analysis.summaries import BUILDER, Summary, numpy_imports, summarize_module, tf_aliases
from tf2migrate.analysis.tf_imports import TfImports, collect_tf_imports
from tf2migrate.analysis.unrun_ops import find_dangling_state, StatefulCalls
from tf2migrate.analysis.loop_state import find_stateful_loops
from tf2migrate.diagnostics import (
    INTERNAL_ERROR,
    PARSE_ERROR,
    TF_IMPORTED_LOCALLY,
    TF_STAR_IMPORT,
    TF_NAME_TAKEN,
    Diagnostic,
    Severity,
    parse_error_message,
)
from tf2migrate.renames_only import migrate_renames_only
from tf2migrate.outcome import MigrationResult, NodePositions, outcome, placed, sorted_unique
from tf2migrate.layout import parse_module
from tf2migrate.plan import Plan
from tf2migrate.positions import Positions, forget_renders, render
from tf2migrate.rewrites.apply_plan import PlanApplier
from tf2migrate.rewrites.checkpoints import plan_checkpoints
from tf2migrate.rewrites.compat_fallback import GRAPH_KEPT_ON_TF1, plan_compat_fallback
from tf2migrate.rewrites.dimension_names import plan_dimension_name_reads
from tf2migrate.rewrites.forward_seeds import Seeded, seed_placeholders
from tf2migrate.rewrites.helper_tapes import plan_helper_tapes
from tf2migrate.rewrites.keras_layers import plan_keras_layers
from tf2migrate.rewrites.layer_helpers import plan_layer_helpers
from tf2migrate.rewrites.lr_schedules import plan_schedules
from tf2migrate.rewrites.rebound_names import LOCAL_REBOUND, REBOUND, Renamed, rename_last_local_bindings, rename_rebound
from tf2migrate.rewrites.predict_trap import (
    GRADIENT_THROUGH_NUMPY,
    NUMPY_SOURCE,
    TrapFacts,
    find_traps,
    may_have_traps,
)
from tf2migrate.rewrites.eager_calls import plan_eager_calls
from tf2migrate.rewrites.eager_variables import plan_eager_variables
from tf2migrate.rewrites.variable_free_scopes import plan_variable_free_scopes
from tf2migrate.rewrites.tf1_eager import enables_eager_execution, may_be_tf1_eager, plan_tf1_eager
from tf2migrate.rewrites.session_cleanup import SESSION_REMOVED, plan_cleanup
from tf2migrate.rewrites import (
    empty_update_ops,
    mnist_input_data,
    pre_1_0_api,
    python2_prints,
    python2_tabs,
    unused_absent_imports,
    update_ops,
)
from tf2migrate.rewrites.line_edits import original_column
from tf2migrate.rewrites import (
    fed_expressions,
    helper_copy,
    helper_split,
    method_lift,
    scope_reuse,
    hoisted_python_calls,
    lambda_helpers,
    factory_inline,
    main_guard,
    one_line_suites,
    tensor_dicts,
    tensor_equality,
    test_asserts,
    tf_callable_names,
    loop_split,
    static_branches,
    device_blocks,
    per_call_ops,
    tf1_queues,
    tf1_summaries,
    tf1_summary_runs,
    variable_lists,
)
from tf2migrate.rewrites.helper_arguments import plan_helper_arguments
from tf2migrate.rewrites.session_functions import GRAPH_ATTRIBUTE_REMOVED, SessionFunctions
from tf2migrate.rewrites.import_edits import absl_names, add_absl_imports, import_conflict, plan_factory_imports, plan_tf_import
from tf2migrate.rewrites.tf_names import API_RENAMED, COMPAT_FALLBACK, REMOVED_MODULE, imports_absent_module, kept_import_findings
from tf2migrate.rewrites.rnn_cells import plan_rnn_cells
from tf2migrate.rewrites.sequence_losses import plan_sequence_losses
from tf2migrate.rewrites.streaming_metrics import plan_streaming_metrics
from tf2migrate.rewrites.tf1_losses import plan_tf1_losses
from tf2migrate.rewrites.tf1_resize import plan_tf1_resize
from tf2migrate.rewrites.written_helpers import written_definitions
from tf2migrate.traversal import FastTransformer, statement_path, find_all, forget_layouts, walk


@dataclass(frozen=True)
class Options:
    """How generated code is written (the same for every file of a run)."""

    # Generated functions run as @tf.function (traced once, with an input_signature from
    # the placeholders when their dtypes and shapes are written out); off → plain eager.
    tf_function: bool = True


@dataclass(frozen=True)
class _ProvenFlags(Options):
    """The options of update_ops' retry and of the retries nested in it: with the tf.bool
    placeholders whose batch normalizations' updates ran in exactly the runs feeding them
    True (Keras' updates). A proof about one file, so never a public option: a caller
    setting it would assert what nothing checked."""

    batch_norm_flags: frozenset[str] = frozenset()
    # an input of theirs not proven of rank 2: TF1 may have run its fused kernel (rewrites/tf1_batch_norm.py)
    batch_norm_fused: bool = False


def _batch_norm_flags(options: Options) -> frozenset[str]:
    return options.batch_norm_flags if isinstance(options, _ProvenFlags) else frozenset()


def _batch_norm_fused(options: Options) -> bool:
    return isinstance(options, _ProvenFlags) and options.batch_norm_fused


def _has_tf1_graph(facts: GraphFacts) -> bool:
    """Only files that build and run TF1 graphs are migrated; TF2 code is left alone.
    (Blockers found in a file without a graph are about nothing and are dropped.)"""
    return bool(facts.session_names or facts.v1_switches or facts.graph_evidence)


def migrate_source(
    source: str,
    path: str = "<string>",
    options: Options = Options(),
    project: FileContext | None = None,
    tree: ast.Module | None = None,
) -> MigrationResult:
    """Never raises, whatever the source: an internal failure is a TFM002 finding and the
    source comes back unchanged (callers from editors and other tools trust that).

    ``project`` is what the file sees of the modules it imports (analysis/project.py:
    their functions' and classes' summaries); ``tree`` is ``source`` as CPython's parser
    read it, when the project layer already parsed it."""
    # what the file's callers proved of it (analysis/external_builds.py) holds for every
    # retry of the same file below, which all pass through here: set once, read by the analysis
    # (and the modules it imports, whose state its graph reads: analysis/imported_calls.state_links)
    expanded = _indentation_expanded(source, tree)
    if expanded is not None:
        return _migrate_tabs_expanded(source, expanded, path, options, project)
    token = _LINKS.set(project if project is not None and (project.linked or project.modules) else None)
    try:
        migrated = _with_mnist_reader(source, _migrate_source(source, path, options, project, tree), path)
        migrated = _with_python2_names(source, _without_unused_absent_imports(source, migrated, path, project), path, tree)
        return _with_tensor_equality(source, migrated, path, tree)
    except RecursionError:
        return MigrationResult(
            source, [Diagnostic(INTERNAL_ERROR.code, "the file nests too deeply to rewrite", path, 1, 1, Severity.ERROR)]
        )
    except Exception as error:  # a bug in a rewrite must not escape to the caller
        message = f"internal error ({type(error).__name__}: {error}); file left unchanged"
        return MigrationResult(source, [Diagnostic(INTERNAL_ERROR.code, message, path, 1, 1, Severity.ERROR)])
    finally:
        _LINKS.reset(token)
        # (what the file's migration shared between its retries: no later file reads it)
        _parsed_file.cache_clear()
        _cpython_tree.cache_clear()
        forget_layouts()
        forget_renders()


def _indentation_expanded(source: str, tree: ast.Module | None) -> tuple[str, int] | None:
    """A TF1 file Python 3 cannot parse whose indentation has tabs: its text with the
    indentation as Python 2 read it (rewrites/python2_tabs.py) and the first line changed."""
    if tree is not None or "\t" not in source or "tensorflow" not in source:
        return None
    try:
        _cpython_tree(source)
    except SyntaxError:  # (an IndentationError, or a print statement before the tabs)
        return python2_tabs.expand_indentation(source)
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _migrate_tabs_expanded(
    source: str, expanded: tuple[str, int], path: str, options: Options, project: FileContext | None
) -> MigrationResult:
    """A file whose tabs and spaces Python 2 read and Python 3 refuses, migrated with its
    indentation in spaces (TFM010); left whole when that text does not parse either."""
    text, first = expanded
    result = migrate_source(text, path, options, project)
    if result.new_source == text and any(f.code.startswith("TFM0") and f.severity is Severity.ERROR for f in result.findings):
        return MigrationResult(source, result.findings)  # (not Python 3 for another reason: as it stands)
    moved = [dataclasses.replace(f, column=python2_tabs.original_column(source, text, f.line, f.column)) for f in result.findings]
    message = (
        "indentation mixing tabs and spaces (Python 2) written in spaces as Python 2 read it, "
        "a tab to the next multiple of 8 columns: the file is Python 3 from here on"
    )
    note = Diagnostic(python2_tabs.TABS_EXPANDED.code, message, path, first, 1, Severity.INFO)
    return MigrationResult(result.new_source, sorted_unique([*moved, note]))


def _with_python2_names(source: str, result: MigrationResult, path: str, tree: ast.Module | None) -> MigrationResult:
    """A file rewritten that Python 3 parses but that reads names only Python 2 had
    (``xrange``, ``unicode``, ``raw_input`` …, bound nowhere in it): each read reported (TFM009,
    a warning), as in a file whose print statements were converted: the migrated file would
    fail there when the line runs.  (Files converted from Python 2 had theirs reported.)"""
    if result.new_source == source or not may_read_python2_names(source):
        return result
    if any(f.code in (python2_prints.PRINTS_CONVERTED.code, PARSE_ERROR.code, INTERNAL_ERROR.code) for f in result.findings):
        return result
    parsed = _parsed(source, tree)
    if parsed is None:
        return result
    found = [
        Diagnostic(PYTHON2_SEMANTICS.code, message, path, line, column, Severity.WARNING) for line, column, message in python2_names(parsed)
    ]
    return MigrationResult(result.new_source, sorted_unique(result.findings + found)) if found else result


def _text_read(source: str, result: MigrationResult) -> str:
    """The text the migration read: ``source``, or, where Python 2 print statements were
    converted first, that conversion (its lines kept), which post-passes place findings on."""
    if any(f.code == python2_prints.PRINTS_CONVERTED.code for f in result.findings):
        converted = python2_prints.convert_prints(source)
        if converted is not None:
            return converted.source
    return source


def _with_tensor_equality(source: str, result: MigrationResult, path: str, tree: ast.Module | None) -> MigrationResult:
    """The post-pass of every file not kept on TF1: TF variables it hashes or compares with
    ``==`` reported (TFM401), and ``tf.compat.v1.disable_tensor_equality()`` written after
    its TensorFlow import, TF1's identity hashing and equality (rewrites/tensor_equality.py).
    A kept graph runs with eager execution disabled, where TF1's hashing holds."""
    if not tensor_equality.may_hash_variables(source) or any(
        f.code in (GRAPH_KEPT_ON_TF1.code, PARSE_ERROR.code, INTERNAL_ERROR.code) for f in result.findings
    ):
        return result
    read = _text_read(source, result)
    parsed = _parsed(read, tree if read is source else None)
    if parsed is None:
        return result
    aliases = tf_aliases(parsed)
    found_here = [] if tensor_equality.switched_off(parsed, aliases) else tensor_equality.hashed_variables(parsed, aliases)
    migrated = _parsed(result.new_source, None) if found_here else None  # (parsed only then: most files have none)
    if migrated is None:
        return result
    migrated_aliases = tf_aliases(migrated)
    if tensor_equality.switched_off(migrated, migrated_aliases):
        return result
    # (what the migration removed, a feed dict of a converted run, is no use any more: the
    # uses still in the migrated text decide, whatever they compare there — its placeholders
    # are arguments of the generated functions — reported where the file wrote them)
    remaining = {(s.text, s.use) for s in tensor_equality.hashed_variables(migrated, migrated_aliases, every_value=True)}
    sites = [s for s in found_here if (s.text, s.use) in remaining]
    if not sites:
        return result
    insertion = tensor_equality.switch_insertion(migrated)
    new_source = result.new_source
    if insertion is not None:
        line, call = insertion
        lines = new_source.splitlines(keepends=True)
        newline = "\r\n" if lines[line - 1].endswith("\r\n") else "\n"
        if not lines[line - 1].endswith(("\n", "\r")):
            lines[line - 1] += newline
        new_source = "".join([*lines[:line], call + newline, *lines[line:]])
    found = [
        Diagnostic(COMPAT_FALLBACK.code, tensor_equality.message(s, insertion is not None), path, s.line, s.column, Severity.WARNING)
        for s in sites
    ]
    return MigrationResult(new_source, sorted_unique(result.findings + found))


def _with_mnist_reader(source: str, result: MigrationResult, path: str) -> MigrationResult:
    """The post-pass of every file, whatever became of its graph: TF1's MNIST reader written
    out in place of ``tensorflow.examples`` (rewrites/mnist_input_data.py, TFM414), the TFM403
    of the import it removed dropped."""
    if not mnist_input_data.may_read_mnist(result.new_source) or any(
        f.code in (PARSE_ERROR.code, INTERNAL_ERROR.code) for f in result.findings
    ):
        return result
    if any(f.code == python2_prints.PRINTS_CONVERTED.code for f in result.findings):
        converted = python2_prints.convert_prints(source)  # what the migration read (lines kept)
        source = converted.source if converted is not None else source
    edit = mnist_input_data.write_out_reader(source, result.new_source, path)
    if edit is None:
        return result
    kept = [
        f
        for f in result.findings
        if not (f.code == REMOVED_MODULE.code and f.line == edit.removed_import_line and mnist_input_data.MODULE in f.message)
    ]
    return MigrationResult(edit.new_source, sorted_unique(kept + edit.findings))


def _without_unused_absent_imports(source: str, result: MigrationResult, path: str, project: FileContext | None) -> MigrationResult:
    """The post-pass of every file: module-level imports of ``tensorflow.contrib`` /
    ``tensorflow.examples`` the file never reads removed (rewrites/unused_absent_imports.py),
    the TFM403 of each dropped: both said at the import's line in ``source``, the text the
    migration read."""
    if not unused_absent_imports.may_import_absent_module(result.new_source) or any(
        f.code in (PARSE_ERROR.code, INTERNAL_ERROR.code) for f in result.findings
    ):
        return result
    removal = unused_absent_imports.remove_unused_absent_imports(
        result.new_source, project.importer_names if project is not None else frozenset(), _parsed(result.new_source, None)
    )
    if removal is None:
        return result
    removed = unused_absent_imports.in_original(_text_read(source, result), removal.removed)
    lines = {line for line, _ in removed}
    kept = [f for f in result.findings if not (f.code == REMOVED_MODULE.code and f.line in lines)]
    notes = [
        Diagnostic(API_RENAMED.code, f"unused `{written}` removed (TF2 does not ship the module)", path, line, 1, Severity.INFO)
        for line, written in removed
    ]
    return MigrationResult(removal.new_source, sorted_unique(kept + notes))


# The libcst tree of a file's text, shared by its migration and the retries that rewrite
# it (each parses the text the migration read; nested retries, the text they rewrote): a
# libcst tree is immutable, so sharing it changes nothing but the time (libcst's parse was
# a tenth of the time of tensor2tensor's kept graph files, parsed up to four times each).
@functools.lru_cache(maxsize=4)
def _parsed_file(source: str) -> cst.Module:
    return parse_module(source)


# CPython's tree of a text, shared the same way: the migration and the post-passes read the
# same file (the Python 2 names' pass parsed it again: a twentieth of tensor2tensor's time).
# Nothing changes an ``ast`` tree once parsed.  A text that does not parse raises each time.
@functools.lru_cache(maxsize=4)
def _cpython_tree(source: str) -> ast.Module:
    with warnings.catch_warnings():  # the user's own oddities are not ours to report
        warnings.simplefilter("ignore")
        return ast.parse(source)


_LINKS: contextvars.ContextVar[FileContext | None] = contextvars.ContextVar("links", default=None)


def _seeds_graph_of_others(source: str, project: FileContext | None) -> bool:
    """Does the file set a graph seed (its text names ``set_random_seed``) and run in the
    graph mode of modules of the run kept on TF1 (FileContext.graph_mode_modules)?  Its
    analysis is asked even without a graph of its own: the seed seeds their graph
    (analysis/graph.py).  (Only then: the other files importing kept modules keep the
    renames-only path.)"""
    return project is not None and bool(project.graph_mode_modules) and "set_random_seed" in source


def _migrate_source(source: str, path: str, options: Options, project: FileContext | None, tree: ast.Module | None) -> MigrationResult:
    expanded = one_line_suites.expand(source, _parsed(source, tree)) if "tensorflow" in source else None
    if expanded is not None:
        # migrated with its one-line suites as indented blocks, the form every rewrite reads
        # (rewrites/one_line_suites.py); the findings on the original's lines and columns
        migrated = _migrate_laid_out(expanded.source, path, options, project, None)
        findings = [
            dataclasses.replace(
                f, line=expanded.map_line(f.line), column=expanded.map_column(f.line, f.column), message=expanded.unmarked(f.message)
            )
            for f in migrated.findings
        ]
        return MigrationResult(expanded.restore(migrated.new_source), findings)
    return _migrate_laid_out(source, path, options, project, tree)


def _migrate_laid_out(source: str, path: str, options: Options, project: FileContext | None, tree: ast.Module | None) -> MigrationResult:
    if pre_1_0_api.may_be_pre_1_0(source):
        tree = _parsed(source, tree)  # (parsed once: handed on to the migration below)
        upgraded = pre_1_0_api.upgrade(source, tree) if tree is not None and "tensorflow" in source else None
        if upgraded is not None:
            return _migrate_pre_1_0(upgraded, source, path, options, project)
    return _migrate_tf1(source, path, options, project, tree)


def _migrate_tf1(source: str, path: str, options: Options, project: FileContext | None, tree: ast.Module | None) -> MigrationResult:
    """A file of TF 1.x code, through the migration and the retries that rewrite what kept
    its graph on TF1 (each a rewritten text migrated again)."""
    result = _migrate_text(source, path, options, project, tree)
    if any(f.code == python2_prints.PRINTS_CONVERTED.code for f in result.findings):
        # a Python 2 file: ``_migrate_python2`` migrated its print-converted text through
        # this function, retries included; the retries below would parse ``source``, which
        # is no Python 3 (a TFM002 in place of the migration)
        return result
    if main_guard.GUARD_TEXT in source and _refusals(result):
        # (first: the moved file goes through every retry below on its own)
        guarded = _migrate_main_guard(result, source, path, options, project, tree)
        if guarded is not None:
            return guarded
    asserted = {(f.line, f.column): m.group(2) for f in _refusals(result) if (m := ASSERT_EVALUATED.match(f.message))}
    if asserted:
        evaluated = _migrate_evaluated(asserted, source, path, options, project)
        if evaluated is not None:
            return evaluated
    refused_lines = {f.line for f in _refusals(result)}
    if refused_lines and _FUNCTION_TEXT in source:
        inlined = _migrate_inlined(refused_lines, source, path, options, project)
        if isinstance(inlined, MigrationResult):
            return inlined
        result = MigrationResult(result.new_source, _with_inline_reasons(result.findings, inlined))
    if refused_lines and _IF_TEXT in source:
        decided = _migrate_decided(refused_lines, source, path, options, project)
        if decided is not None:
            return decided
    if refused_lines and device_blocks.DEVICE_TEXT in source:
        unwrapped = _migrate_unwrapped(refused_lines, source, path, options, project)
        if isinstance(unwrapped, MigrationResult):
            return unwrapped
        if unwrapped:  # (the class's TFM307 says the block is not all that keeps the graph)
            result = MigrationResult(result.new_source, _with_device_reason(result.findings, unwrapped))
    dict_reads = {m.group(1) for f in _refusals(result) if (m := tensor_dicts.REFUSED_READ.search(f.message))}
    if dict_reads:
        resolved_reads = _migrate_dict_reads(dict_reads, source, path, options, project)
        if resolved_reads is not None:
            return resolved_reads
    if any(f.code.startswith("TFM3") and variable_lists.COLLECTION_REFUSAL.match(f.message) for f in result.findings):
        written = _migrate_written_out(source, path, options, project)
        if isinstance(written, MigrationResult):
            return written
        result = MigrationResult(result.new_source, _with_list_reasons(result.findings, written))
    made_by_helpers = {
        m.group(1) for f in result.findings if f.code == VARIABLE_IN_COMPUTATION.code and (m := helper_split.HELPER_CALL.search(f.message))
    }
    if made_by_helpers:
        split_helpers = _migrate_split_helpers(made_by_helpers, source, path, options, project)
        if isinstance(split_helpers, MigrationResult):
            return split_helpers
        result = MigrationResult(result.new_source, helper_split.with_reasons(result.findings, split_helpers))
    # (after the split, whose reasons name the helpers another module holds, before the method lift: the
    # copied file's own methods are moved and split)
    if project is not None and any(f.code == VARIABLE_IN_COMPUTATION.code and helper_copy.IMPORTED in f.message for f in _refusals(result)):
        copied = _migrate_copied(source, path, options, project)
        if isinstance(copied, MigrationResult):
            return copied
        if copied:
            result = MigrationResult(result.new_source, helper_copy.with_reason(result.findings, copied))
    made_by_methods = {
        m.group(1) for f in result.findings if f.code == VARIABLE_IN_COMPUTATION.code and (m := method_lift.METHOD_CALL.search(f.message))
    }
    if made_by_methods:
        lifted = _migrate_lifted(made_by_methods, source, path, options, project)
        if isinstance(lifted, MigrationResult):
            return lifted
        result = MigrationResult(result.new_source, method_lift.with_reasons(result.findings, lifted))
    mixed_loops = {f.line for f in result.findings if f.code == VARIABLE_IN_COMPUTATION.code and f.message.startswith(MIXED_BLOCK)}
    if mixed_loops:
        split = _migrate_split(mixed_loops, source, path, options, project)
        if isinstance(split, MigrationResult):
            return split
        result = MigrationResult(result.new_source, _with_loop_reasons(result.findings, mixed_loops, source, split, project))
    scaled = {f.line for f in result.findings if f.code.startswith("TFM3") and f.message == fed_expressions.UNNAMED_PLACEHOLDER}
    if scaled:
        unscaled = _migrate_unscaled(scaled, source, path, options, project)
        if unscaled is not None:
            return unscaled
    lambdas = {m.group(1) for f in result.findings if f.code.startswith("TFM3") and (m := lambda_helpers.PYTHON_CALL.match(f.message))}
    if lambdas:
        defined = _migrate_defined(lambdas, source, path, options, project)
        if defined is not None:
            return defined
        resolved = _migrate_resolved(lambdas, result, source, path, options, project)
        if resolved is not result and not _refusals(resolved):
            return resolved
        result = resolved
    python_calls = {(f.line, f.column, m.group(1)) for f in _refusals(result) if (m := hoisted_python_calls.PLAIN_REFUSAL.match(f.message))}
    if python_calls:
        computed_before = _migrate_python_calls_hoisted(python_calls, source, path, options, project)
        if computed_before is not None:
            return computed_before
    if (
        empty_update_ops.UPDATE_OPS_TEXT in source
        and update_ops.BATCH_NORM not in source  # (its updates fill the collection: update_ops' below)
        and any(f.message.startswith(update_ops.COLLECTION_REFUSAL) for f in _refusals(result))
    ):
        emptied = _migrate_empty_update_ops(source, path, options, project)
        if isinstance(emptied, MigrationResult):
            return emptied
        result = MigrationResult(result.new_source, empty_update_ops.with_reason(result.findings, source, emptied))
    if update_ops.UPDATE_OPS in source and update_ops.BATCH_NORM in source and _refusals(result):
        dropped = _migrate_update_ops(source, path, options, project)
        if isinstance(dropped, MigrationResult):
            return dropped
        result = MigrationResult(result.new_source, update_ops.with_reason(result.findings, source, dropped))
    if any(f.code == GRAPH_GROWS_PER_CALL.code for f in result.findings):
        hoisted = _migrate_hoisted(source, path, options, project)
        if hoisted is not None:
            return hoisted
    locals_rebound = {
        (m.group(1), m.group(2)) for f in result.findings if f.code.startswith("TFM3") and (m := LOCAL_REBOUND.match(f.message))
    }
    if locals_rebound:
        renamed = _migrate_locals_renamed(locals_rebound, source, path, options, project)
        if renamed is not None:
            return renamed
    rebound = {m.group(1) for f in result.findings if f.code.startswith("TFM3") and (m := REBOUND.match(f.message))}
    return _migrate_renamed(result, rebound, source, path, options, project) if rebound else result


def _migrate_locals_renamed(
    locals_rebound: set[tuple[str, str]], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | None:
    """A graph kept on TF1 because a function's local it reads is bound more than once: the
    file with the last binding of each renamed (rewrites/rebound_names.py), if its graph then
    converts, its findings placed on the original's lines and columns; else None."""
    module = _parsed_file(source)
    in_use = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    renamed = rename_last_local_bindings(module, locals_rebound, in_use)
    if renamed is None:
        return None
    text = renamed.module.code
    again = _migrate_source(text, path, options, project, None)
    if again.new_source == text or _refusals(again):
        return None
    return _placed_on_original(module, renamed, again, path)


def _placed_on_original(module: cst.Module, renamed: Renamed, again: MigrationResult, path: str) -> MigrationResult:
    """The migration of a renamed file (rewrites/rebound_names.py), its findings and the
    renames' notes placed on the original's lines and columns."""
    moved = [dataclasses.replace(f, column=renamed.map_column(f.line, f.column)) for f in again.findings]
    return MigrationResult(again.new_source, sorted_unique(moved + placed(renamed.notes, Positions(module), path)))


def _migrate_main_guard(
    result: MigrationResult, source: str, path: str, options: Options, project: FileContext | None, tree: ast.Module | None
) -> MigrationResult | None:
    """A graph kept on TF1 by graph code under ``if __name__ == "__main__":``: the file with
    that block as a function the guard calls (rewrites/main_guard.py), if its graph then
    converts, its findings placed on the original's lines; else None.  ``tree``: CPython's
    tree of ``source``, when at hand."""
    parsed = _parsed(source, tree)
    if parsed is not None and not main_guard.may_hold(parsed, {f.line for f in _refusals(result)}):
        return None  # (no refusal in the block: the move, which costs two renders, is not made)
    module = _parsed_file(source)
    moved = main_guard.move_into_function(module, source)
    if moved is None or not any(moved.guard_line <= f.line <= moved.added_after for f in _refusals(result)):
        return None
    return _retried(moved, main_guard.MAIN_GUARD.code, path, options, project, moved.map_line)


def _migrate_evaluated(
    asserted: dict[tuple[int, int], str], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | None:
    """A graph kept on TF1 because a test passes its tensors to an assertion that evaluated
    them (TFM301): the file with those written ``self.evaluate(tensor)``
    (rewrites/test_asserts.py), if its graph then converts, its findings placed on the
    original's columns; else None."""
    evaluated = test_asserts.evaluate_asserted(_parsed_file(source), asserted)
    if evaluated is None:
        return None
    code = test_asserts.TEST_ASSERT_EVALUATED.code
    return _retried(evaluated, code, path, options, project, map_column=evaluated.map_column)


# in the text of every file with a module function (a cheap test before parsing)
_FUNCTION_TEXT = "def "


def _migrate_inlined(
    lines: set[int], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | dict[tuple[int, int], str]:
    """A graph kept on TF1 by a refusal in a module function called once, at the top level or
    at the top of another module function (its tensors leave it through ``return``, TFM301;
    a mixed loop in it, TFM304): the file with the function's body written out at its call
    (rewrites/factory_inline.py), if its graph then converts, its findings placed on the
    original's lines; else why each such function returning a value is not written out, or
    what keeps the graph on TF1 once it is, by its lines."""
    reasons: dict[tuple[int, int], str] = {}
    inlined = factory_inline.inline_factories(_parsed_file(source), source, lines, reasons)
    if inlined is None:
        return reasons
    again = _migrate_source(inlined.source, path, options, project, None)
    converted = _retried(inlined, factory_inline.FACTORY_INLINED.code, path, options, project, inlined.map_line, again)
    if converted is not None:
        return converted
    why = _still_kept(_refusals(again), _WRITTEN_OUT)
    return {**dict.fromkeys(inlined.written_out, why), **reasons} if why else reasons


def _with_inline_reasons(findings: list[Diagnostic], reasons: dict[tuple[int, int], str]) -> list[Diagnostic]:
    """The findings, with why a function's body was not written out at its call (or what keeps
    the graph once it is) appended to the TFM301 of what it returns, or to the TFM304 of a loop
    in it (rewrites/factory_inline.py)."""
    out = []
    for f in findings:
        why = next((r for (first, last), r in reasons.items() if first <= f.line <= last), None)
        if why is not None and f.code in (GRAPH_VALUE_OUTSIDE_RUN.code, VARIABLE_IN_COMPUTATION.code):
            said = why if why.startswith(_WRITTEN_OUT) else f"not {_WRITTEN_OUT}: {why}"
            f = dataclasses.replace(f, message=f"{f.message} ({said})")
        out.append(f)
    return out


def _migrate_dict_reads(dicts: set[str], source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | None:
    """A graph kept on TF1 by a read of a dict of graph names (``ae['x']`` fed, TFM302): the
    file with such reads written as the names (rewrites/tensor_dicts.py, on the same lines),
    if its graph then converts; else None."""
    resolved = tensor_dicts.resolve_reads(_parsed_file(source), source, dicts)
    if resolved is None:
        return None
    return _retried(resolved, tensor_dicts.TENSOR_DICT_READ.code, path, options, project)


def _migrate_hoisted(source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | None:
    """A graph kept on TF1 because methods build ops from it at every call (TFM309): the
    file with those ops built once in the constructor (rewrites/per_call_ops.py), if its
    graph then converts, its findings placed on the original's lines (the attributes the
    move made are no finding of the original: TFM116 says what became of the ops); else None."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    hoisted = per_call_ops.hoist(module, imports) if imports.aliases else None
    if hoisted is None:
        return None
    again = _migrate_source(hoisted.source, path, options, project, None)
    if again.new_source == hoisted.source or _refusals(again):
        return None
    made = tuple(f"`self.{attribute}`" for attribute in hoisted.attributes)
    moved = [
        dataclasses.replace(f, line=hoisted.map_line(f.line), column=hoisted.map_column(f.line, f.column))
        for f in again.findings
        if not (f.code == GRAPH_ATTRIBUTE_REMOVED.code and f.message.startswith(tuple(f"attribute {name} " for name in made)))
    ]
    notes = [Diagnostic(per_call_ops.PER_CALL_OPS.code, message, path, line, column) for line, column, message in hoisted.notes]
    return MigrationResult(again.new_source, sorted_unique(moved + notes))


def _migrate_unscaled(lines: set[int], source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | None:
    """A graph kept on TF1 because a placeholder is scaled by a number before its name binds
    it (TFM306): the file with the number dropped (rewrites/fed_expressions.py), if its graph
    then converts; else None."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    unscaled = fed_expressions.unscale(module, imports, lines) if imports.aliases else None
    return _retried(unscaled, fed_expressions.FED_EXPRESSION.code, path, options, project)


def _migrate_written_out(source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | dict[int, str] | str:
    """A graph kept on TF1 because it reads a collection of trainable variables (TFM306):
    the file with each written as the list of the variables TF1 returned there
    (rewrites/variable_lists.py), if its graph then converts; else why a list is not known,
    by line, or, every list known, what still keeps the rewritten file on TF1."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    imported = local_summaries(ast.parse(source), project) if project is not None else {}
    builders = frozenset(name for name, summary in imported.items() if summary.kind == BUILDER)
    exported = project.importer_names if project is not None else frozenset()
    written = variable_lists.write_out(module, imports, builders, exported) if imports.aliases else {}
    if isinstance(written, dict):
        return written
    again = _migrate_source(written.source, path, options, project, None)
    retried = _retried(written, variable_lists.VARIABLE_LIST.code, path, options, project, again=again)
    if retried is not None:
        return retried
    # every list known, the file is refused for something else: say what (a refusal saying
    # only that the collection is not converted would hide it; a method moved to the module,
    # a helper split, report this reason as what still keeps their graph)
    return _still_kept(_refusals(again), _WRITTEN_OUT_LISTS) or {}


def _migrate_empty_update_ops(source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | str:
    """A graph kept on TF1 because it reads the UPDATE_OPS collection: the file without its
    dependencies on it, when nothing of the program fills it (rewrites/empty_update_ops.py),
    if its graph then converts; else why not."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    if not imports.aliases:
        return "no TensorFlow import"
    elsewhere = project.update_ops_producers if project is not None else _unread_imports(source)
    dropped = empty_update_ops.drop_empty_update_ops(module, imports, source, elsewhere)
    if isinstance(dropped, str):
        return dropped
    again = _migrate_source(dropped.source, path, options, project, None)
    retried = _retried(dropped, empty_update_ops.EMPTY_UPDATE_OPS.code, path, options, project, dropped.map_line, again)
    if retried is not None:
        return retried
    return (
        _still_kept(_refusals(again), "the collection is empty; once its `with` blocks are dropped") or "the file is unchanged without them"
    )


def _unread_imports(source: str) -> tuple[str, ...]:
    """Without the project (a text migrated alone), the modules the file imports that are
    neither TensorFlow, NumPy, SciPy nor the standard library: they are not read."""
    known = {"tensorflow", "numpy", "scipy", "__future__", *sys.stdlib_module_names}
    tree = _parsed(source, None)
    modules = [
        alias.name if isinstance(node, ast.Import) else ("." * node.level) + (node.module or "")
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    return tuple(dict.fromkeys(f"{m}: not read" for m in modules if m.split(".")[0] not in known))


def _migrate_update_ops(source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | str:
    """A graph kept on TF1 because batch normalizations take a fed training flag: the file
    without the UPDATE_OPS collection and its ``with`` block (rewrites/update_ops.py),
    migrated with those flags proven, if its graph then converts; else why not."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    dropped = update_ops.drop_update_ops(module, imports) if imports.aliases else "no TensorFlow import"
    if isinstance(dropped, str):
        return dropped
    proven = _ProvenFlags(**dataclasses.asdict(options) | {"batch_norm_flags": dropped.flags, "batch_norm_fused": dropped.fused})
    again = _migrate_source(dropped.source, path, proven, project, None)
    retried = _retried(dropped, update_ops.UPDATE_OPS_DROPPED.code, path, proven, project, dropped.map_line, again)
    if retried is not None:
        return retried
    # (what keeps the file on TF1 without them, named: "other reasons" would hide it)
    return (
        _still_kept(_refusals(again), "with the UPDATE_OPS collection dropped") or "the file without them is kept on TF1 for other reasons"
    )


def _with_list_reasons(findings: list[Diagnostic], reasons: dict[int, str] | str) -> list[Diagnostic]:
    """The findings, with why the collection on a refused line is not written out (by line),
    or what keeps the file on TF1 once every one is (one reason)."""

    def why(line: int) -> str | None:
        if isinstance(reasons, str):
            return reasons
        return f"not written out as a list: {reasons[line]}" if line in reasons else None

    return [
        dataclasses.replace(f, message=f"{f.message} ({reason})")
        if f.code.startswith("TFM3") and variable_lists.COLLECTION_REFUSAL.match(f.message) and (reason := why(f.line)) is not None
        else f
        for f in findings
    ]


def _migrate_defined(names: set[str], source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | None:
    """A graph kept on TF1 because it calls module names bound to lambdas (TFM306, a Python
    call in graph-building code): the file with those lambdas written as one-line defs on
    the same lines (rewrites/lambda_helpers.py), if its graph then converts; else None."""
    defined = lambda_helpers.define_lambdas(_parsed_file(source), names)
    return _retried(defined, lambda_helpers.LAMBDA_HELPER.code, path, options, project)


def _migrate_python_calls_hoisted(
    calls: set[tuple[int, int, str]], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | None:
    """A graph kept on TF1 because of Python calls in graph-building code that read no graph
    value (TFM306): the file with each computed by a statement of its own just before its
    statement (rewrites/hoisted_python_calls.py), if its graph then converts; else None."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    hoisted = hoisted_python_calls.hoist(module, imports, calls) if imports.aliases else None
    if hoisted is None:
        return None
    return _retried(hoisted, hoisted_python_calls.HOISTED_CALL.code, path, options, project, map_line=hoisted.map_line)


def _migrate_resolved(
    names: set[str], result: MigrationResult, source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult:
    """A graph kept on TF1 because it calls names bound to TF functions or to partials of
    them (TFM306, a Python call in graph-building code): the file with those calls written
    as the TF calls they make (rewrites/tf_callable_names.py), if its graph then converts,
    its findings placed on the original's lines; else ``result``, its refusals of calls of
    such names saying why they were not written out, or what still keeps the graph once
    they are."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    resolved = tf_callable_names.resolve(module, imports, names, project is not None and project.tf1_callers) if imports.aliases else None
    if resolved is None:
        return result
    reasons = dict(resolved.reasons)
    if resolved.source is not None:
        again = _migrate_source(resolved.source, path, options, project, None)
        kept = _refusals(again)
        if again.new_source != resolved.source and not kept:
            findings = [dataclasses.replace(f, line=resolved.map_line(f.line)) for f in again.findings]
            notes = [
                Diagnostic(tf_callable_names.TF_CALLABLE_NAME.code, message, path, line, column) for line, column, message in resolved.notes
            ]
            return MigrationResult(again.new_source, sorted_unique(findings + notes))
        if kept:
            line = resolved.map_line(kept[0].line)
            shown = any(f.code == kept[0].code and f.line == line and f.message == kept[0].message for f in result.findings)
            still = f"by its {kept[0].code} refusal on line {line}" if shown else f"line {line}: {kept[0].code} {kept[0].message}"
            reasons.update(
                {
                    name: f"`{name}` stands for `{whole}` at every call, but written out as that call the graph is still kept ({still})"
                    for name, whole in resolved.followed.items()
                }
            )
    return MigrationResult(result.new_source, tf_callable_names.with_reasons(result.findings, reasons)) if reasons else result


def _migrate_split_helpers(
    names: set[str], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | dict[str, str]:
    """A graph kept on TF1 because calls of helpers of the file named ``names`` both create
    variables and build ops (TFM304): the file with those helpers split in two
    (rewrites/helper_split.py), if its graph then converts; else why each helper was not split."""
    done = _SPLITTING_HELPERS.get()
    names = names - done  # a helper split already is not split again; one the split let through is
    if not names:
        return {}
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    split = helper_split.split_helpers(module, imports, names) if imports.aliases else {}
    if isinstance(split, dict):
        return split
    token = _SPLITTING_HELPERS.set(done | (names - split.later))
    try:
        again = _migrate_source(split.source, path, options, project, None)
    finally:
        _SPLITTING_HELPERS.reset(token)
    refused = _refusals(again)
    if again.new_source != split.source and not refused:
        done_split = _retried(split, helper_split.HELPER_SPLIT.code, path, options, project, split.map_line, again)
        if done_split is None:
            return {}
        reused = [Diagnostic(scope_reuse.SCOPE_REUSE.code, message, path, line, column) for line, column, message in split.reuse_notes]
        return MigrationResult(done_split.new_source, sorted_unique(done_split.findings + reused))
    # the split file's graph stays on TF1 all the same: say what keeps it there
    # (no line number: a notebook's lines are its joined program's)
    why = _still_kept(refused, "once split")
    # (a helper left for the next round, once its layer helpers are split, was tried there)
    unsplit = {helper: reason for helper, reason in split.unsplit.items() if helper not in split.later}
    if why and unsplit:
        # a helper applied under reuse that could not be split keeps the reuse, and the graph
        helper, reason = next(iter(sorted(unsplit.items())))
        why += f"; `{helper}` is not split: {reason}"
    return dict.fromkeys(names, why) if why else {}


# the helpers split already while the split file of a helper split is migrated: they are not
# split again (a helper whose calls were hidden behind theirs, TFM304 reporting the first, is)
_SPLITTING_HELPERS: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("splitting_helpers", default=frozenset())


def _migrate_copied(source: str, path: str, options: Options, project: FileContext) -> MigrationResult | str:
    """A graph kept on TF1 because helpers of another module of the run both create variables
    and build ops (TFM304): the file with its own copy of those helpers (rewrites/helper_copy.py),
    which the helper split then splits, if its graph then converts; else why not."""
    if _COPYING.get():  # (the copied file's own refusals name no helper copied already)
        return ""
    copied = helper_copy.copy_helpers(_parsed_file(source), project)
    if isinstance(copied, str):
        return copied
    token = _COPYING.set(True)
    try:
        again = _migrate_source(copied.source, path, options, project, None)
    finally:
        _COPYING.reset(token)
    converted = _retried(copied, helper_split.HELPER_SPLIT.code, path, options, project, copied.map_line, again)
    if converted is not None:
        return converted
    return _still_kept(_refusals(again), "once copied") or "copied, its graph still stays on TF1"


# set while the file with imported helpers copied in is migrated: not copied again
_COPYING: contextvars.ContextVar[bool] = contextvars.ContextVar("copying_helpers", default=False)


def _migrate_lifted(
    names: set[str], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | dict[str, str]:
    """A graph kept on TF1 because calls of methods named ``names`` on ``self`` both create
    variables and build ops (TFM304): the file with those methods moved to functions of the
    module (rewrites/method_lift.py), which the helper split then splits, if its graph then
    converts; else why each method stays (appended to its TFM304)."""
    module = _parsed_file(source)
    lifted = method_lift.lift_methods(module, names, project.importer_attributes if project is not None else frozenset())
    if isinstance(lifted, dict):
        return lifted
    again = _migrate_source(lifted.source, path, options, project, None)
    converted = _retried(lifted, method_lift.METHOD_LIFTED.code, path, options, project, lifted.map_line, again)
    if converted is not None:
        return converted
    why = _still_kept(_refusals(again), "once moved to the module")
    return dict.fromkeys(names, why or "moved to the module, its graph still stays on TF1")


def _still_kept(refused: list[Diagnostic], rewritten: str) -> str:
    """What still keeps the graph of a rewritten file (its loops or helpers split, a function
    written out at its call: ``rewritten`` says which) on TF1: the rewritten file's first refusal
    (no line number: a notebook's lines are its joined program's); "" if none.  A refusal that
    says what keeps the graph once rewritten in turn (a loop of a function written out, then
    split) is followed to that."""
    if not refused:
        return ""
    _, chained, reason = refused[0].message.rpartition(_STILL_KEPT)
    if chained:  # (the end of its parenthesis, and of the refusal's)
        reason = reason.split(") (")[0].removesuffix(")")
    else:
        reason = f"{refused[0].code}: {refused[0].message.split(': ')[0][:160]}"
        _, unsplit, why = refused[0].message.partition(f"({_NOT_SPLIT}")
        if unsplit:  # (a loop of the rewritten file: why it stays there, which its arguments no longer decide)
            reason += f", {_NOT_SPLIT}{why.removesuffix(')')}"
    return f"{rewritten}, {_STILL_KEPT}{reason}"


_STILL_KEPT = "the graph is still kept on TF1 by "
_NOT_SPLIT = "not split into variables and ops:"
_WRITTEN_OUT = "written out at its call"
_WRITTEN_OUT_LISTS = "written out as the lists TF1 returned"


# in the text of every file with an ``if`` statement (a cheap test before parsing)
_IF_TEXT = "if "


def _migrate_decided(lines: set[int], source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | None:
    """A graph kept on TF1 by a refusal in an ``if`` whose test TF1 decided from literals and
    static shapes: the file with the branch taken in its place (rewrites/static_branches.py),
    if its graph then converts, its findings placed on the original's lines; else None."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    decided = static_branches.decide_branches(module, imports, lines) if imports.aliases else None
    return _retried(decided, static_branches.BRANCH_DECIDED.code, path, options, project, decided.map_line if decided else None)


def _migrate_unwrapped(lines: set[int], source: str, path: str, options: Options, project: FileContext | None) -> MigrationResult | str:
    """A graph kept on TF1 by a refusal inside a top-level ``with tf.device(...):`` block:
    the file with the block's statements at the module's top (rewrites/device_blocks.py), if
    its graph then converts, its findings placed on the original's lines and columns; else
    what keeps the unwrapped file on TF1 ("" if no block was unwrapped)."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    unwrapped = device_blocks.unwrap_device_blocks(module, imports, lines) if imports.aliases else None
    if unwrapped is None:
        return ""
    again = _migrate_source(unwrapped.source, path, options, project, None)
    code = device_blocks.DEVICE_BLOCK_UNWRAPPED.code
    converted = _retried(unwrapped, code, path, options, project, unwrapped.map_line, again, unwrapped.map_column)
    return converted if converted is not None else _still_kept(_refusals(again), "with its device block unwrapped")


def _with_device_reason(findings: list[Diagnostic], reason: str) -> list[Diagnostic]:
    """The findings, with what keeps the graph once its device block is unwrapped appended to
    the TFM307 of a class defined in that block."""
    return [
        dataclasses.replace(f, message=f"{f.message} ({reason})")
        if f.code == CLASS_BASED_GRAPH.code and device_blocks.DEFINED_INSIDE in f.message
        else f
        for f in findings
    ]


def _migrate_split(
    lines: set[int], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult | dict[int, str]:
    """A graph kept on TF1 because loops on ``lines`` both create variables and build ops
    (TFM304): the file with those loops split in two (rewrites/loop_split.py), if its graph
    then converts, its findings placed on the original's lines; else, for the loops that were
    split, what keeps the split file's graph on TF1 all the same (the TFM304 alone would blame
    the loop), by their lines."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    split = loop_split.split_loops(module, imports, lines, imported_builders(module, project)) if imports.aliases else None
    if split is None:
        return {}
    again = _migrate_source(split.source, path, options, project, None)
    converted = _retried(split, loop_split.LOOP_SPLIT.code, path, options, project, split.map_line, again)
    if converted is not None:
        return converted
    why = _still_kept(_refusals(again), "once split")
    return {line: why for line, _, _ in split.notes if line in lines} if why else {}


def _with_loop_reasons(
    findings: list[Diagnostic], lines: set[int], source: str, kept: dict[int, str], project: FileContext | None
) -> list[Diagnostic]:
    """The findings, with why a mixed loop was not split appended to its TFM304, when a number
    read off the ops' static shapes keeps it (rewrites/loop_split.py), or what keeps the graph
    once it is split (``kept``, by the loops' lines)."""
    module = _parsed_file(source)
    imports = collect_tf_imports(module)
    unsplit = loop_split.unsplit_reasons(module, imports, lines, imported_builders(module, project)) if imports.aliases else {}
    reasons = {**kept, **unsplit}
    return [
        dataclasses.replace(f, message=f"{f.message} ({_NOT_SPLIT} {reasons[f.line]})")
        # (not when it says what keeps the graph once its function is written out, where it would be split)
        if f.code == VARIABLE_IN_COMPUTATION.code
        and f.message.startswith(MIXED_BLOCK)
        and f.line in reasons
        and _STILL_KEPT not in f.message
        else f
        for f in findings
    ]


def _retried(
    rewritten,
    code: str,
    path: str,
    options: Options,
    project: FileContext | None,
    map_line=None,
    again: MigrationResult | None = None,
    map_column=None,
) -> MigrationResult | None:
    """The migration of a TF1-to-TF1 rewrite of the file (``rewritten.source``; its notes,
    ``(line, column, message)``, become ``code`` findings), if its graph then converts;
    else None. ``map_line`` places the findings on the original's lines (``map_column``, given
    the rewrite's line and column, on its columns); ``again``: that migration, when the caller
    made it."""
    if rewritten is None:
        return None
    if again is None:
        again = _migrate_source(rewritten.source, path, options, project, None)
    if again.new_source == rewritten.source or _refusals(again):
        return None
    findings = again.findings
    if map_column is not None:
        findings = [dataclasses.replace(f, column=map_column(f.line, f.column)) for f in findings]
    if map_line is not None:
        findings = [dataclasses.replace(f, line=map_line(f.line)) for f in findings]
    notes = [Diagnostic(code, message, path, line, column) for line, column, message in rewritten.notes]
    return MigrationResult(again.new_source, sorted_unique(findings + notes))


def _migrate_renamed(
    result: MigrationResult, rebound: set[str], source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult:
    """A graph kept on TF1 because names it reads are bound again later: the file with those
    bindings renamed (rewrites/rebound_names.py) if its graph then converts, its findings
    placed on the original's lines and columns; else ``result``.  A statement's refusal
    names one of the names it reads (``W, b = sess.run([W, b])``): when the renamed file is
    refused only because others are rebound, they are renamed too, a few rounds at most."""
    module = _parsed_file(source)
    in_use = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    for _ in range(_RENAME_ROUNDS):
        renamed = rename_rebound(module, rebound, set(in_use))
        if renamed is None:
            return result
        text = renamed.module.code
        again = _migrate_text(text, path, options, project, None)
        refusals = _refusals(again)
        if again.new_source != text and not refusals:
            return _placed_on_original(module, renamed, again, path)
        more = {m.group(1) for f in refusals if (m := REBOUND.match(f.message))}
        if not more or len(more) < len(refusals) or more <= rebound:
            return result
        rebound = rebound | more
    return result


_RENAME_ROUNDS = 4


def _parsed(source: str, tree: ast.Module | None) -> ast.Module | None:
    """CPython's tree of ``source`` (the one given, if any); None where it does not parse
    (a Python 2 file is read once its prints are calls, through ``_migrate_source`` again)."""
    if tree is not None:
        return tree
    try:
        return _cpython_tree(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _migrate_pre_1_0(
    upgraded: pre_1_0_api.Upgraded, source: str, path: str, options: Options, project: FileContext | None
) -> MigrationResult:
    """A TensorFlow 0.x file (rewrites/pre_1_0_api.py, TFM415): migrated as the TF 1.x
    program its upgrade is, the findings placed on the original (the edits keep lines)."""
    result = _migrate_tf1(upgraded.source, path, options, project, None)
    if (
        upgraded.edits
        and result.new_source == upgraded.source
        and any(f.code.startswith("TFM0") and f.severity is Severity.ERROR for f in result.findings)
    ):
        return MigrationResult(source, result.findings)  # a file left as it was is left whole
    moved = [dataclasses.replace(f, column=original_column(upgraded.edits, f.line, f.column)) for f in result.findings]
    # a 0.x summary left as written for TF 1.x that the summaries rewrite then converted as
    # 0.x built it (TFM126, placed on the same call): no longer a reference left failing
    converted = {(f.line, f.column) for f in moved if f.code == tf1_summaries.SUMMARY_WRITES.code and "(TensorFlow 0.x) →" in f.message}
    notes = [
        Diagnostic(
            pre_1_0_api.PRE_1_0_UPGRADED.code,
            message + ("; converted as 0.x built it (TFM126)" if (line, column) in converted else ""),
            path,
            line,
            column,
            Severity.WARNING if pre_1_0_api.LEFT in message and (line, column) not in converted else Severity.INFO,
        )
        for line, column, message in upgraded.notes
    ]
    return MigrationResult(result.new_source, sorted_unique(moved + notes))


def _refusals(result: MigrationResult) -> list[Diagnostic]:
    """What keeps a rewritten retry's graph on TF1 (or broke it): then the retry is dropped."""
    return [f for f in result.findings if f.code.startswith("TFM3") or f.code == INTERNAL_ERROR.code]


def _migrate_python2(source: str, error: SyntaxError, path: str, options: Options, project: FileContext | None) -> MigrationResult:
    """A Python 2 file: its print statements made calls (rewrites/python2_prints.py, TFM008),
    then migrated as any other, with what Python 3 reads otherwise reported (TFM009).  The
    conversion keeps every line's number, so findings need no moving but on converted lines.
    If anything else keeps it from parsing (``except E, e``), it is reported (TFM001) as it stands."""
    converted = python2_prints.convert_prints(source)
    broken = python2_prints.indentation_error(source) if converted is None else None
    if broken is not None:  # (what stops the conversion stops Python 2 too: not a Python 2 file to convert)
        message = f"cannot parse as Python 3 nor as Python 2: {broken.msg}"
        return MigrationResult(source, [Diagnostic(PARSE_ERROR.code, message, path, broken.lineno or 1, 1, Severity.ERROR)])
    if converted is None:
        if python2_prints.imports_print_function(source):
            message = f"cannot parse as Python 3: {error.msg}: a print statement in a file that imports `print_function`, which is no Python 2 either"
        else:
            message = parse_error_message(error.msg)
        return MigrationResult(source, [Diagnostic(PARSE_ERROR.code, message, path, error.lineno or 1, error.offset or 1, Severity.ERROR)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(converted.source)
    except SyntaxError as again:
        line = again.lineno or 1
        column = converted.original_column(line, again.offset or 1)
        message = parse_error_message(
            again.msg, python2_prints.python2_construct(converted.source, line) if again.msg == "invalid syntax" else None
        )
        return MigrationResult(source, [Diagnostic(PARSE_ERROR.code, message, path, line, column, Severity.ERROR)])
    except (ValueError, RecursionError, MemoryError) as failure:
        return MigrationResult(source, [Diagnostic(PARSE_ERROR.code, f"cannot parse: {failure}", path, 1, 1, Severity.ERROR)])
    result = _migrate_source(converted.source, path, options, project, tree)
    if result.new_source == converted.source and any(f.code.startswith("TFM0") and f.severity is Severity.ERROR for f in result.findings):
        return MigrationResult(source, result.findings)  # a file left as it was (TFM002, TFM005, TFM007) is left whole
    count = sum(1 for edit in converted.edits if edit.text.endswith(")"))
    notes = [
        Diagnostic(
            python2_prints.PRINTS_CONVERTED.code,
            f"Python 2 print statements converted to calls ({count} statement{'s' if count != 1 else ''}): "
            "the file was Python 2, and is Python 3 from here on",
            path,
            *converted.first,
        )
    ]
    notes += [
        Diagnostic(PYTHON2_SEMANTICS.code, message, path, line, converted.original_column(line, column), Severity.WARNING)
        for line, column, message in python2_semantics(tree)
    ]
    moved = [dataclasses.replace(f, column=converted.original_column(f.line, f.column)) for f in result.findings]
    return MigrationResult(result.new_source, sorted_unique(moved + notes))


def _migrate_text(source: str, path: str, options: Options, project: FileContext | None, tree: ast.Module | None) -> MigrationResult:
    if "tensorflow" not in source:
        return MigrationResult(source, [])
    # CPython's parser first: it is fast, names problems best (``Missing parentheses in
    # call to 'print'``), and its tree gives the file-wide facts (analysis/module_facts.py)
    try:
        tree = tree or _cpython_tree(source)
    except SyntaxError as error:
        if error.msg.startswith(python2_prints.PRINT_STATEMENT):
            return _migrate_python2(source, error, path, options, project)
        construct = python2_prints.python2_construct(source, error.lineno) if error.msg == "invalid syntax" and error.lineno else None
        message = parse_error_message(error.msg, construct)
        return MigrationResult(source, [Diagnostic(PARSE_ERROR.code, message, path, error.lineno or 1, error.offset or 1, Severity.ERROR)])
    except (ValueError, RecursionError, MemoryError) as error:
        return MigrationResult(source, [Diagnostic(PARSE_ERROR.code, f"cannot parse: {error}", path, 1, 1, Severity.ERROR)])
    local_imports = _tf_imported_locally(tree)
    if local_imports:
        message = "TensorFlow is imported here but not at the top of the module: tf2migrate reads only top-level imports, so this file's TensorFlow code is left as written (move the import to the top)"
        return MigrationResult(
            source, [Diagnostic(TF_IMPORTED_LOCALLY.code, message, path, n.lineno, n.col_offset + 1, Severity.INFO) for n in local_imports]
        )
    star_imports = tf_star_imports(tree)
    if star_imports:
        return MigrationResult(source, _star_import_findings(tree, star_imports, path))
    imported = local_summaries(tree, project) if project is not None else {}
    removable = project.removable if project is not None else ()
    tf1_callers = project is not None and project.tf1_callers
    # (a module running in the graph mode of modules kept on TF1 is read whole: a graph seed
    # of its own seeds their graph, analysis/graph.py)
    if not _seeds_graph_of_others(source, project) and not any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in removable for node in tree.body
    ):
        # (None: the whole module is needed)
        renamed = migrate_renames_only(source, tree, path, numpy_imports(imported), tf1_callers)
        if renamed is not None:
            return renamed
    # (the file's own net objects matter only to its graph, which the path above refuses to
    # take: summarizing every function of a library file cost a fifth of a large run)
    # (the module summarized once, for both its net objects and its session factories)
    summarize = functools.cache(functools.partial(summarize_module, tree, imported))
    seen = _ProjectView({**own_net_objects(tree, imported, Path(path).name, summarize), **imported}, removable, tf1_callers)
    exported = project.importer_names | project.importer_module_names if project is not None else frozenset()
    factories = own_session_factories(tree, imported, Path(path).name, exported, summarize)
    if factories:
        # (the file's own factories go with their calls only where the graph converts: a graph
        # kept on TF1 still calls them)
        result = _migrate_seen(
            source, tree, path, options, seen._replace(imported={**factories, **seen.imported}, removable={*removable, *factories})
        )
        if not any(f.code in (GRAPH_KEPT_ON_TF1.code, INTERNAL_ERROR.code) for f in result.findings):
            return result
    return _migrate_seen(source, tree, path, options, seen)


def _migrate_seen(source: str, tree: ast.Module, path: str, options: Options, seen: _ProjectView) -> MigrationResult:
    """The parsed file migrated with what it sees of the run's project."""
    try:
        module = _parsed_file(source)
    except cst.ParserSyntaxError as error:
        message = f"cannot parse: {error.message}"
        return MigrationResult(
            source, [Diagnostic(PARSE_ERROR.code, message, path, error.editor_line, error.editor_column, Severity.ERROR)]
        )
    if any(word in source for word in tf1_queues.WORDS):  # (cheap test first, as below)
        imports = collect_tf_imports(module)
        queued = tf1_queues.desugar(module, imports, module_facts(tree, imports).names) if imports.aliases else None
        if queued is not None:
            return _migrate_queued(queued, module, tree, source, path, options, seen)
    seeded = None
    # (cheap tests first: the analysis below walks the whole file; a seed is a placeholder)
    if "grad_ys" in source and "placeholder" in source:
        imports = collect_tf_imports(module)
        seeded = seed_placeholders(module, imports, module_facts(tree, imports).names) if imports.aliases else None
    if seeded is None:
        return _migrate_parsed(module, tree, source, path, options, seen)
    if seeded.module is None:
        return _with_refused_seeds(_migrate_parsed(module, tree, source, path, options, seen), seeded, module, path)
    return _migrate_seeded(seeded, module, tree, source, path, options, seen)


def _star_import_findings(tree: ast.Module, imports: list[ast.ImportFrom], path: str) -> list[Diagnostic]:
    """TFM007 at each TensorFlow star import, naming the TF1 names the file reads through
    it, and at each of those reads."""
    uses = changed_names_used(tree, imports)
    findings: list[Diagnostic] = []
    for node in imports:
        mine = [u for u in uses if u.source is node]
        names = ", ".join(dict.fromkeys(f"`{u.node.id}`" for u in mine))
        read = f"; TF1 names read through it: {names}" if mine else ""
        message = (
            f"`from {node.module} import *` binds TensorFlow's names without a prefix: tf2migrate cannot tell them "
            f"from the file's own, so the file is left as written{read} (import the names you use, or `import "
            "tensorflow as tf` and write `tf.` before them, then run again)"
        )
        findings.append(Diagnostic(TF_STAR_IMPORT.code, message, path, node.lineno, node.col_offset + 1, Severity.ERROR))
    for use in uses:
        message = f"`{use.node.id}` is TF1's `tf.{use.path}`, from `from {use.source.module} import *` (line {use.source.lineno}): left as written, TF2 lacks or changed it"
        findings.append(Diagnostic(TF_STAR_IMPORT.code, message, path, use.node.lineno, use.node.col_offset + 1, Severity.ERROR))
    return findings


def _tf_imported_locally(tree: ast.Module) -> list[ast.stmt]:
    """The imports of TensorFlow of a module that imports it nowhere at its top level."""

    def imports_tf(node: ast.AST) -> bool:
        if isinstance(node, ast.Import):
            return any(alias.name.split(".")[0] == "tensorflow" for alias in node.names)
        return isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "tensorflow"

    if any(imports_tf(statement) for statement in tree.body):
        return []
    return sorted((node for node in ast.walk(tree) if imports_tf(node)), key=lambda node: (node.lineno, node.col_offset))  # type: ignore[misc]


class _ProjectView(NamedTuple):
    """What a module sees of the run's project (analysis/project.FileContext)."""

    imported: dict[str, Summary]  # the summaries of the names it imports
    removable: Collection[str]  # its session factories no module of the run calls any more
    tf1_callers: bool  # a TF1 file of the run imports it


def _migrate_parsed(
    module: cst.Module,
    tree: ast.Module,
    source: str,
    path: str,
    options: Options,
    seen: _ProjectView,
    positions: NodePositions | None = None,
) -> MigrationResult:
    factories = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value in seen.removable]
    return _migrate_module(module, tree, source, path, options, seen.imported, factories, seen.tf1_callers, positions)


_GENERIC_QUEUE_BLOCKER = re.compile(
    r"`tf\.(?:" + "|".join(re.escape(name) for name in sorted(tf1_queues.QUEUE_CALLS)) + r")` is not converted by this release"
)


def _migrate_queued(
    queued: tf1_queues.Queued, module: cst.Module, tree: ast.Module, source: str, path: str, options: Options, seen: _ProjectView
) -> MigrationResult:
    """The module with its queue pipelines as TF1 tf.data iterators (rewrites/tf1_queues.py)
    migrated, its findings placed on the original's nodes.  If the graph stays on TF1 all the
    same, or the pipelines were refused, the original is migrated instead (kept on TF1) and
    reported with the true reasons, not the generic ones of the queue calls."""
    positions = Positions(module)
    reasons = placed(queued.refusals, positions, path)
    if queued.module is not None:
        text = queued.module.code
        anchored = _Anchored(positions, queued.anchors)
        result = _migrate_parsed(queued.module, ast.parse(text), text, path, options, seen, anchored)
        kept = any(f.code.startswith("TFM3") or f.code == INTERNAL_ERROR.code for f in result.findings)
        if not kept:
            return MigrationResult(result.new_source, sorted_unique(result.findings + placed(queued.notes, positions, path)))
        reasons = [f for f in result.findings if f.code.startswith("TFM3")]
    original = _migrate_parsed(module, tree, source, path, options, seen)
    if not reasons or not any(f.code.startswith("TFM3") for f in original.findings):
        return original
    others = [f for f in original.findings if not f.code.startswith("TFM3")]
    if queued.module is None:  # refused: the queue calls' generic reasons give way to the refusal
        others += [f for f in original.findings if f.code.startswith("TFM3") and not _GENERIC_QUEUE_BLOCKER.fullmatch(f.message)]
    return MigrationResult(original.new_source, sorted_unique(others + reasons))


class _Anchored:
    """Positions of a rewritten module's nodes in the original: a node the rewrite made
    stands where the original node it is anchored to stood."""

    def __init__(self, positions: Positions, anchors: dict[int, cst.CSTNode]) -> None:
        self._positions = positions
        self._anchors = anchors

    def get(self, node: cst.CSTNode) -> tuple[int, int] | None:
        return self._positions.get(self._anchors.get(id(node), node))


def _migrate_seeded(
    seeded: Seeded, module: cst.Module, tree: ast.Module, source: str, path: str, options: Options, seen: _ProjectView
) -> MigrationResult:
    """The module with its forward-mode seeds (rewrites/forward_seeds.py) migrated, its
    findings placed on the original's lines.  If its graph stays on TF1 all the same, the
    original is migrated instead; kept on TF1 too, it is reported with the reasons the
    seeded module gives (the seeds' own placeholders are not among them)."""
    assert seeded.module is not None
    text = seeded.module.code
    result = _migrate_parsed(seeded.module, ast.parse(text), text, path, options, seen)
    kept = any(f.code.startswith("TFM3") or f.code == INTERNAL_ERROR.code for f in result.findings)
    findings = result.findings + ([] if kept else placed(seeded.notes, Positions(seeded.module), path))
    moved = [dataclasses.replace(f, line=seeded.map_line(f.line)) for f in findings]
    if not kept:
        return MigrationResult(result.new_source, sorted_unique(moved))
    original = _migrate_parsed(module, tree, source, path, options, seen)
    if any(f.code == INTERNAL_ERROR.code for f in result.findings) or not any(f.code.startswith("TFM3") for f in original.findings):
        return original
    reasons = [f for f in moved if f.code.startswith("TFM3")]
    on_tf1 = MigrationResult(original.new_source, sorted_unique([f for f in original.findings if not f.code.startswith("TFM3")] + reasons))
    return _with_refused_seeds(on_tf1, seeded, module, path)


def _with_refused_seeds(result: MigrationResult, seeded: Seeded, module: cst.Module, path: str) -> MigrationResult:
    """A graph kept on TF1 is reported with what kept placeholders that look like
    forward-mode seeds from being replaced (a run that does not feed one is often why)."""
    if not seeded.refused or not any(f.code.startswith("TFM3") for f in result.findings):
        return result
    return MigrationResult(result.new_source, sorted_unique(result.findings + placed(seeded.refused, Positions(module), path)))


def _migrate_module(
    original: cst.Module,
    tree: ast.Module,
    source: str,
    path: str,
    options: Options,
    imported: dict[str, Summary],
    factories: list[cst.FunctionDef],
    tf1_callers: bool,
    positions: NodePositions | None = None,
) -> MigrationResult:
    """``factories``: session factories no module of the run calls any more (engine.py),
    removed before the analysis sees them; findings are placed on ``original``, whose
    statements the module without them shares.  ``tf1_callers``: TF1 code of the run
    imports the module, so its names meant what TF1 gave them (FileContext).  ``positions``:
    see _migrate_graph."""
    module = original.with_changes(body=[s for s in original.body if s not in factories]) if factories else original
    imports = collect_tf_imports(module)
    if not imports.aliases:
        return MigrationResult(source, [])
    # the names the file uses (generated names must not clash), its TF1 evidence and
    # whether it holds a graph at all, from CPython's tree (much cheaper than a walk of the
    # libcst tree: most files of a large tree are libraries, which need no graph analysis)
    file_facts = module_facts(tree, imports, tf1_callers)
    # (a file whose session factory is removed keeps its summaries: the rewritten module
    # would not share the statements findings are placed on)
    index = None  # the analysis' walk of the module, made first when its calls are asked for here
    if not factories and file_facts.graph and not file_facts.writes_graph_only and "summary" in source:
        index = index_module(module)
        if tf1_summaries.has_tf1_summaries(module, imports, index.calls):
            return _migrate_with_summaries(module, tree, file_facts, source, path, options, imports, imported, tf1_callers, index)
    return _migrate_graph(
        original, module, tree, file_facts, source, path, options, imports, imported, factories, positions=positions, index=index
    )


_GENERIC_SUMMARY_BLOCKER = re.compile(r"`tf\.summary\.\w+` is not converted by this release")


def _migrate_with_summaries(
    module: cst.Module,
    tree: ast.Module,
    file_facts: ModuleFacts,
    source: str,
    path: str,
    options: Options,
    imports: TfImports,
    imported: dict[str, Summary],
    tf1_callers: bool = False,
    index: NodeIndex | None = None,
) -> MigrationResult:
    """TF1 summaries rewritten to raw summary ops and a TF2 writer first
    (rewrites/tf1_summaries.py); the graph is then converted as any other.  Where the
    summaries cannot be rewritten, or the graph stays on TF1 for another reason, the
    original is migrated (kept on TF1) and reported with the true reasons, not the
    summaries' generic ones.  ``tf1_callers``: TF1 code of the run imports the module
    (and may read what its ``merge_all()`` returned); ``index``: ``index_module(module)``."""
    desugared = tf1_summaries.desugar(module, imports, file_facts.names, tf1_callers)
    refusals = desugared.refusals
    true_blockers: list[Diagnostic] = []
    if desugared.module is not None:
        text = desugared.module.code
        new_imports = collect_tf_imports(desugared.module)
        facts = analyze(
            desugared.module, new_imports, imported, _LINKS.get(), tf1=file_facts.tf1, batch_norm_flags=_batch_norm_flags(options)
        )
        refusals = tf1_summary_runs.train_run_refusals(facts, desugared)
        if not refusals:
            new_tree = ast.parse(text)
            result = _migrate_graph(
                desugared.module,
                desugared.module,
                new_tree,
                module_facts(new_tree, new_imports),
                text,
                path,
                options,
                new_imports,
                imported,
                [],
                facts,
                tuple(desugared.notes),
            )
            failed = result.new_source == text or any(f.code == INTERNAL_ERROR.code for f in result.findings)
            if not failed and not any(f.code.startswith("TFM3") for f in result.findings):
                laid_out = tf1_summary_runs.lay_out(parse_module(result.new_source), desugared.writers).code
                return MigrationResult(laid_out, result.findings)
            true_blockers = [f for f in result.findings if f.code.startswith("TFM3")]
    kept = _migrate_graph(module, module, tree, file_facts, source, path, options, imports, imported, index=index)
    if not any(f.code.startswith("TFM3") for f in kept.findings):
        return kept  # summaries outside the graph code (already left as they were)
    generic = [f for f in kept.findings if f.code.startswith("TFM3") and (true_blockers or _GENERIC_SUMMARY_BLOCKER.fullmatch(f.message))]
    findings = [f for f in kept.findings if f not in generic] + true_blockers + placed(refusals, Positions(module), path)
    return MigrationResult(kept.new_source, sorted_unique(findings))


def _migrate_graph(
    original: cst.Module,
    module: cst.Module,
    tree: ast.Module,
    file_facts: ModuleFacts,
    source: str,
    path: str,
    options: Options,
    imports: TfImports,
    imported: dict[str, Summary],
    factories: tuple[cst.FunctionDef, ...] | list[cst.FunctionDef] = (),
    facts: GraphFacts | None = None,
    notes: tuple[tuple[cst.CSTNode, str, str], ...] = (),
    positions: NodePositions | None = None,
    index: NodeIndex | None = None,
) -> MigrationResult:
    """``original``: see _migrate_module; ``notes``: findings of a rewrite made before the
    analysis (rewrites/tf1_summaries.py), reported when the graph is converted;
    ``positions``: where the module's nodes stand in the file (default: in ``original``);
    ``index``: ``index_module(module)``, when made already."""
    # (the predict-trap search walks the libcst tree, whose nodes it rewrites)
    if facts is None:
        facts = (
            analyze(module, imports, imported, _LINKS.get(), index, file_facts.tf1, _batch_norm_flags(options))
            if file_facts.graph or _seeds_graph_of_others(source, _LINKS.get())
            else GraphFacts(imports)
        )
    module_names, root_is_tf1, names_v1_explicitly = file_facts.names, file_facts.tf1, file_facts.explicit_v1
    # (a file importing a TF module TF2 does not ship is not TF2 code)
    names_v1_explicitly = names_v1_explicitly or imports_absent_module(imports)
    traps = []
    numpy_imported = numpy_imports(imported)
    if may_have_traps(source, tree, numpy_imported):
        trap_facts = TrapFacts()
        walk(module, trap_facts)
        traps = find_traps(module, imports, trap_facts, numpy_imported)
    plan = Plan(absl_names=absl_names(module.body, module_names), defines_main=_defines_main(module), root_is_tf1=root_is_tf1)
    plan.one_table_lookups = one_table_lookups(module, imports)
    # (a program switching eager execution on ran its ops eagerly: TF1 eager code, not a graph)
    graph_objects = _has_tf1_graph(facts)
    graph = graph_objects and not (may_be_tf1_eager(source) and enables_eager_execution(module, imports))
    if not graph:
        facts.blockers.clear()
    conflict = import_conflict(imports, file_facts, tree) if graph or root_is_tf1 or names_v1_explicitly else None
    if conflict is not None:
        message, line = conflict
        return MigrationResult(source, [Diagnostic(TF_NAME_TAKEN.code, message, path, line, 1, Severity.ERROR)])
    if graph and not facts.blockers:
        find_dropped_python_values(facts, module)  # (first: it may keep statements where they are)
        find_escapes(facts, module)
        stateful = StatefulCalls(facts)
        find_dangling_state(facts, stateful)
        find_stateful_loops(facts, stateful)
        find_shared_variables(facts)
    if graph and not facts.blockers:
        plan.eager_graph = True  # (a fresh plan below if a rewrite blocks after all)
        names_in_use = set(module_names)
        plan_dimension_name_reads(module, plan)  # (first: every pass that writes code reads them)
        # (calls rewritten whole, before the rewrites that write graph code into functions)
        plan_eager_calls(facts, plan, module, tree, names_in_use)
        plan_sequence_losses(facts, plan)
        plan_tf1_losses(module, facts, plan, names_in_use)
        plan_tf1_resize(module, facts, plan, names_in_use)
        plan_eager_variables(module, facts, plan)
        plan_helper_tapes(module, facts, plan, names_in_use)
        plan_helper_arguments(facts, plan)
        plan_keras_layers(module, facts, plan, names_in_use, _batch_norm_flags(options), _batch_norm_fused(options))
        plan_streaming_metrics(module, facts, plan, names_in_use)
        plan_rnn_cells(module, facts, plan, names_in_use)
        plan_layer_helpers(module, facts, plan, names_in_use, _batch_norm_fused(options))
        plan_schedules(module, facts, plan, names_in_use)
        SessionFunctions(module, facts, plan, names_in_use, options.tf_function).run()
        plan_checkpoints(module, facts, plan, names_in_use)
        for node, code, message in facts.notes:
            plan.note(node, code, message)
        plan_cleanup(facts, plan)
        plan_factory_imports(module, facts, plan)
    if graph and facts.blockers:
        # All or nothing: the graph stays on TF1 semantics (a fresh plan: no eager edits).
        plan = Plan(
            absl_names=plan.absl_names, defines_main=plan.defines_main, root_is_tf1=root_is_tf1, one_table_lookups=plan.one_table_lookups
        )
        plan_compat_fallback(module, facts, plan, written_definitions(module))
    elif not graph and not (root_is_tf1 or names_v1_explicitly):
        return _trap_fixes_only(module, source, path, traps)  # TF2 code: only the trap check
    elif not graph and may_be_tf1_eager(source):
        plan_tf1_eager(module, facts, plan, set(module_names), graph_objects)
    if not facts.blockers:
        plan_variable_free_scopes(module, facts, plan)
    decided = len(facts.blockers)  # convert or keep: decided; nothing may block after this
    for factory in factories:
        plan.note(factory, SESSION_REMOVED.code, f"session factory `{factory.name.value}` removed: no module of the run calls it any more")
    for trap in traps:
        if trap.fix is not None:
            plan.replace[id(trap.source)] = trap.fix
    plan_tf_import(module.config_for_parsing, imports, plan)
    words = edit_words(imports)
    targets = plan.edited_nodes()
    quiet = quiet_statements(module, tree, source, words, targets)
    # what tf2migrate wrote on an earlier run is TF2 code: not renamed as the file's TF1 names are
    # (rewrites/written_helpers.py), unless a rewrite edits it
    quiet |= {id(w) for w in written_definitions(module) if not any(id(n) in targets for n in find_all(w, cst.CSTNode))}
    new_module = module.visit(PlanApplier(plan, imports, quiet, words))
    new_module = add_absl_imports(new_module, plan)
    if len(facts.blockers) != decided:
        return MigrationResult(
            source,
            [
                Diagnostic(
                    INTERNAL_ERROR.code,
                    "a blocker was found after the convert/keep decision; file left unchanged",
                    path,
                    1,
                    1,
                    Severity.ERROR,
                )
            ],
        )
    # (the findings' positions: only the top-level statements holding them are rendered)
    positions = positions or Positions.of_parsed(original, source, tree, functools.partial(statement_path, original))
    # (an import the plan removes, ``import tensorflow.contrib.eager as tfe``, is no longer kept)
    kept_imports = [finding for finding in kept_import_findings(imports) if id(finding[0]) not in plan.remove]
    kept = [(b.node, b.rule.code, b.message) for b in facts.blockers] + kept_imports + _trap_findings(traps, positions)
    made = [(f.node, f.code, f.message) for f in plan.findings] + (list(notes) if not facts.blockers else [])
    return outcome(source, render(new_module), tree, imports, path, positions, kept, made, plan.renames.findings)


def _trap_findings(traps, positions: NodePositions) -> list[tuple[cst.CSTNode, str, str]]:
    out = []
    for trap in traps:
        position = positions.get(trap.source)
        where = f" (line {position[0]})" if position else ""
        source = cst.Module([]).code_for_node(trap.source.func)
        if trap.fix is not None:
            fixed = cst.Module([]).code_for_node(trap.fix)
            out.append((trap.source, NUMPY_SOURCE.code, f"{trap.description} inside a GradientTape; rewritten to `{fixed}`"))
            continue
        out.append(
            (
                trap.gradient,
                GRADIENT_THROUGH_NUMPY.code,
                f"the gradient target comes from `{source}(...)`{where}: {trap.description}, so this gradient is None; "
                "compute the target with the model's differentiable function (not a predict that returns NumPy) "
                "inside the GradientTape",
            )
        )
        out.append((trap.source, NUMPY_SOURCE.code, f"{trap.description}; a gradient is taken of its result"))
    return out


def _trap_fixes_only(module: cst.Module, source: str, path: str, traps) -> MigrationResult:
    """TF2 code is not migrated, but a gradient through NumPy is still reported (and a
    Keras ``predict`` inside a tape is still fixed)."""
    if not traps:
        return MigrationResult(source, [])
    positions = Positions(module)
    fixes = {id(t.source): t.fix for t in traps if t.fix is not None}
    new_source = module.visit(_Replace(fixes)).code if fixes else source
    return MigrationResult(new_source, placed(_trap_findings(traps, positions), positions, path))


class _Replace(FastTransformer):
    def __init__(self, replacements: dict) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), super().on_leave(original_node, updated_node))


def _defines_main(module: cst.Module) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == "main" for s in module.body)
