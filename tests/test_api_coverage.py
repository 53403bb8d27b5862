"""Every TF1 symbol migrates to a name that exists in TF2 (after tf_upgrade_v2's testAllAPI).

The names are resolved in a subprocess with ``TF_USE_LEGACY_KERAS=1`` — the setting TF1
``tf.layers`` code needs under TF ≥ 2.16 — so the result does not depend on which test
imported TensorFlow first.  The migration itself never imports TensorFlow.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import libcst as cst
import pytest

from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, KEYWORD_RENAMES, RENAMES, REORDERS, SAME_IN_TF2, V1_ONLY
from tf2migrate.rewrites.tf_names import TfNameNormalizer, tf2_target

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow not installed")

# tf.keras is left as written: it is TF2 API (Keras 3's own changes are not TF1 → TF2).
ALL_V1_PATHS = sorted(p for p in SAME_IN_TF2 | DIFFERENT_IN_TF2.keys() | V1_ONLY | RENAMES.keys() if not p.startswith("keras"))

_RESOLVER = r"""
import inspect, json, sys
import tensorflow as tf
import absl.app, absl.flags, absl.logging
roots = {"tf": tf, "flags": absl.flags, "logging": absl.logging, "app": absl.app}
out = {}
for item in json.load(sys.stdin):
    head, _, rest = item["name"].partition(".")
    obj = roots[head]
    try:
        for part in rest.split(".") if rest else []:
            obj = getattr(obj, part)
    except AttributeError:
        out[item["name"]] = None
        continue
    params = None
    if item.get("signature"):
        target = obj.__init__ if inspect.isclass(obj) else obj
        try:
            ps = inspect.signature(target).parameters
            params = ["**"] if any(p.kind is p.VAR_KEYWORD for p in ps.values()) else list(ps)
        except (TypeError, ValueError):
            params = ["**"]
    out[item["name"]] = params if params is not None else []
json.dump(out, sys.stdout)
"""


def _resolve_in_tensorflow(items: list[dict]) -> dict:
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, "-c", _RESOLVER], input=json.dumps(items), capture_output=True, text=True, env=env, check=True)
    return json.loads(result.stdout)


def _migrated_call(path: str, keywords: list[str]) -> cst.BaseExpression:
    source = f"import tensorflow as tf\ntf.{path}(" + ", ".join(f"{k}=v{i}" for i, k in enumerate(keywords)) + ")\n"
    module = cst.parse_module(source)
    return module.visit(TfNameNormalizer(collect_tf_imports(module))).body[1].body[0].value  # type: ignore[attr-defined]


def test_every_tf1_symbol_has_a_tf2_name_that_exists():
    targets = {path: tf2_target(path) for path in ALL_V1_PATHS}
    names = sorted({t.code for t in targets.values() if t.kind != "removed"})
    resolved = _resolve_in_tensorflow([{"name": n} for n in names])
    missing = [f"tf.{p} → {t.code}" for p, t in targets.items() if t.kind != "removed" and resolved[t.code] is None]
    assert not missing, f"{len(missing)} migrated names do not exist in TF2: {missing}"
    kinds = [t.kind for t in targets.values()]
    # Most of the TF1 API lands outside tf.compat.v1.
    assert kinds.count("same") + kinds.count("renamed") + kinds.count("absl") > 2 * kinds.count("compat")


def test_migrated_keywords_exist_in_the_tf2_signatures():
    """After tf_upgrade_v2's testV2KeywordArgNames: a call passing every TF1 argument by
    keyword migrates to keywords that the TF2 function accepts (or stays tf.compat.v1)."""
    calls = {}
    for path in sorted(KEYWORD_RENAMES.keys() | REORDERS.keys()):
        if path.startswith("keras") or tf2_target(path).kind == "removed":
            continue
        keywords = list(dict.fromkeys([n for n in REORDERS.get(path, []) if n] + list(KEYWORD_RENAMES.get(path, {}))))
        call = _migrated_call(path, keywords)
        if not isinstance(call, cst.Call):
            continue
        func = cst.Module([]).code_for_node(call.func)
        if func.startswith("tf.") and not func.startswith("tf.compat.v1."):
            calls[path] = (func, [a.keyword.value for a in call.args if a.keyword is not None])
    assert len(calls) > 50
    signatures = _resolve_in_tensorflow([{"name": f, "signature": True} for f, _ in calls.values()])
    wrong = []
    for path, (func, keywords) in calls.items():
        params = signatures[func]
        if params is None:
            wrong.append(f"{func} does not exist")
        elif "**" not in params:
            unknown = [k for k in keywords if k not in params]
            if unknown:
                wrong.append(f"tf.{path} → {func} does not accept {unknown}")
    assert not wrong, "\n".join(wrong)
