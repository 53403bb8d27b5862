"""Every rule of tf2migrate, listed once (ruff's codes table).

Each module that emits findings declares its rules next to the code that emits them (its
``RULES``); this module names those modules explicitly — no discovery by import side
effect — and answers ``rule(code)`` / ``all_rules()`` for the command line, the SARIF
writer and the severity of findings.
"""

from __future__ import annotations

from tf2migrate import diagnostics
from tf2migrate.analysis import blockers, python2_semantics
from tf2migrate.diagnostics import Rule
from tf2migrate.rewrites import (
    checkpoints,
    compat_fallback,
    descriptions,
    eager_calls,
    forward_seeds,
    function_emission,
    gradient_tape,
    helper_arguments,
    keras_layers,
    streaming_metrics,
    fed_expressions,
    update_ops,
    empty_update_ops,
    helper_split,
    hoisted_python_calls,
    method_lift,
    scope_reuse,
    lambda_helpers,
    factory_inline,
    main_guard,
    tensor_dicts,
    test_asserts,
    static_branches,
    device_blocks,
    tf_callable_names,
    loop_split,
    lr_schedules,
    mnist_input_data,
    per_call_ops,
    predict_trap,
    pre_1_0_api,
    python2_prints,
    python2_tabs,
    rebound_names,
    rnn_cells,
    scipy_optimizer,
    session_cleanup,
    session_functions,
    tf1_iterators,
    tf1_queues,
    tf1_summaries,
    tf_names,
    train_steps,
    variable_free_scopes,
    variable_lists,
)

_MODULES = (
    diagnostics,
    pre_1_0_api,
    python2_prints,
    python2_tabs,
    python2_semantics,
    blockers,
    session_functions,
    descriptions,
    function_emission,
    session_cleanup,
    gradient_tape,
    helper_arguments,
    forward_seeds,
    train_steps,
    scipy_optimizer,
    lr_schedules,
    checkpoints,
    tf1_summaries,
    tf1_iterators,
    tf1_queues,
    tf_names,
    compat_fallback,
    eager_calls,
    keras_layers,
    streaming_metrics,
    predict_trap,
    rebound_names,
    per_call_ops,
    loop_split,
    helper_split,
    method_lift,
    scope_reuse,
    lambda_helpers,
    factory_inline,
    main_guard,
    tensor_dicts,
    test_asserts,
    static_branches,
    device_blocks,
    tf_callable_names,
    hoisted_python_calls,
    fed_expressions,
    update_ops,
    empty_update_ops,
    rnn_cells,
    mnist_input_data,
    variable_lists,
    variable_free_scopes,
)


def _table() -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for module in _MODULES:
        for rule in module.RULES:
            if rule.code in table:
                raise ValueError(f"code {rule.code} declared twice")
            table[rule.code] = rule
    return dict(sorted(table.items()))


RULES = _table()


def rule(code: str) -> Rule:
    return RULES[code]


def all_rules() -> list[Rule]:
    return list(RULES.values())
