"""Generate tf2migrate/data/tf_symbols.py from the installed TensorFlow.

The migrate path must never import TensorFlow, so the facts it needs about the TF1 and
TF2 APIs are computed here, once, and stored as plain Python data.

    python scripts/generate_tf_tables.py            # rewrite the table
    python scripts/generate_tf_tables.py --check    # exit 1 if the table is stale

What is recorded, for every public ``tf.compat.v1`` symbol path:
- ``SAME_IN_TF2``: the path resolves in the TF2 namespace to the very same object, so
  ``tf.<path>`` keeps the meaning under TF2;
- ``DIFFERENT_IN_TF2``: the path exists in TF2 but is another object (a v2 variant with a
  different signature or behaviour), with both parameter lists so a rewrite can tell
  whether a given call means the same thing under both;
- ``V1_ONLY``: the path has no TF2 namesake;
- ``V2_ONLY``: public TF2 paths that ``tf.compat.v1`` lacks (with the others, every path
  generated code may name; the output check refuses any other).
Together they are the public TF1 API; a TF path outside it (``tensorflow.examples``,
``tf.keras.datasets``) is not a graph-building op.

From TensorFlow's own upgrade script (``tensorflow/tools/compatibility``, the tables
behind ``tf_upgrade_v2``), with the ``tf.`` prefix removed from every path:
- ``RENAMES``: TF1 path → TF2 path (``compat.v1.X`` where TF2 has no home for it);
- ``KEYWORD_RENAMES``: path → {old keyword: new keyword, or None to drop it};
- ``REORDERS``: path → TF1 positional parameter names, None where a position keeps its
  meaning (positionals at named slots must become keywords before renaming);
- ``TRANSFORMED``: paths whose call sites need a rewrite beyond renaming;
- ``WARNINGS``: path → what changed (for findings);
- ``DEPRECATED_MODULES``: module path → message;
- ``UNRESOLVED_RENAMES``: paths whose rename target this TensorFlow no longer has.
"""

from __future__ import annotations

import argparse
import inspect
import os
import pprint
import sys
import types
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "tf2migrate" / "data" / "tf_symbols.py"
# Sub-namespaces that are lazily loaded from other distributions (Keras, Estimator),
# that are version switches, or that re-export other libraries (absl's flags, mock in
# ``test``): their symbols are not graph-building TF1 API.
SKIPPED_NAMESPACES = ("compat", "keras", "estimator", "test", "flags", "app")
MAX_DEPTH = 5


def _walk(module, prefix, depth, out):
    if depth > MAX_DEPTH:
        return
    try:
        names = dir(module)
    except Exception:  # a lazily loaded namespace whose backing package is absent
        return
    for name in names:
        if name.startswith("_"):
            continue
        path = prefix + name
        if path.split(".")[0] in SKIPPED_NAMESPACES:
            continue
        try:
            obj = getattr(module, name)
        except Exception:
            continue
        if isinstance(obj, types.ModuleType):
            _walk(obj, path + ".", depth + 1, out)
        else:
            out[path] = obj


def _resolve(root, path):
    obj = root
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:
            return None, False
    return obj, True


def _parameters(obj, open_keywords=False):
    """The parameter names of ``obj`` (a class: of its ``__init__``); None where the
    signature cannot be read, or, with ``open_keywords``, where it takes ``**kwargs``: then
    no keyword is refused (TF2's ``tf.train.Checkpoint(model=..., optimizer=...)``)."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return None
    if open_keywords and any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    return tuple(p for p in parameters if p not in ("self", "args", "kwargs"))


def build_table_text() -> str:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    # TF1 layers and RNN cells live in tf-keras; without this they do not resolve.
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    import tensorflow as tf

    v1_symbols: dict[str, object] = {}
    _walk(tf.compat.v1, "", 0, v1_symbols)
    same, different, v1_only = [], {}, []
    for path, obj in sorted(v1_symbols.items()):
        v2_obj, found = _resolve(tf, path)
        if not found:
            v1_only.append(path)
            continue
        if v2_obj is obj:
            same.append(path)
        elif callable(obj) and callable(v2_obj):
            different[path] = (_parameters(obj), _parameters(v2_obj, open_keywords=True))
        else:
            different[path] = (None, None)
    v2_symbols: dict[str, object] = {}
    _walk(tf, "", 0, v2_symbols)
    # internal packages reached through public modules (dtensor.python…) are not API
    v2_only = sorted(path for path in v2_symbols if path not in v1_symbols and path.split(".")[0] not in ("dtensor", "security", "tools"))
    lines = [
        '"""TF1 → TF2 symbol facts. GENERATED by scripts/generate_tf_tables.py; do not edit.',
        "",
        f"Source: tensorflow {tf.__version__} (tf.compat.v1 compared with the TF2 namespace).",
        '"""',
        "",
        f'TF_VERSION = "{tf.__version__}"',
        "",
        "# Paths whose TF2 object is the TF1 object itself.",
        "SAME_IN_TF2 = frozenset(" + pprint.pformat(same, width=88, compact=True) + ")",
        "",
        "# Paths present in TF2 as another object: path -> (TF1 parameters, TF2 parameters);",
        "# None where a signature could not be read.",
        "DIFFERENT_IN_TF2: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...] | None]] = " + pprint.pformat(different, width=88),
        "",
        "# Public TF1 paths with no namesake in TF2.",
        "V1_ONLY = frozenset(" + pprint.pformat(v1_only, width=88, compact=True) + ")",
        "",
        "# Public TF2 paths that tf.compat.v1 does not have (tf.random.set_seed, tf.summary.create_file_writer…).",
        "V2_ONLY = frozenset(" + pprint.pformat(v2_only, width=88, compact=True) + ")",
        "",
        *_upgrade_tables(tf),
    ]
    return "\n".join(lines)


def _strip(path: str) -> str:
    return path[3:] if path.startswith("tf.") else path


# The mappings' types, written into the table so that a type checker does not infer
# ``object`` from their mixed values (None marks a dropped keyword or a kept position).
_TYPES = {
    "RENAMES": "dict[str, str]",
    "KEYWORD_RENAMES": "dict[str, dict[str, str | None]]",
    "REORDERS": "dict[str, list[str | None]]",
    "WARNINGS": "dict[str, str]",
    "DEPRECATED_MODULES": "dict[str, str]",
}


def _upgrade_tables(tf) -> list[str]:
    from tensorflow.tools.compatibility import tf_upgrade_v2

    spec = tf_upgrade_v2.TFAPIChangeSpec()
    tables = {
        "RENAMES": {_strip(k): _strip(v) for k, v in spec.symbol_renames.items() if k.startswith("tf.")},
        "KEYWORD_RENAMES": {_strip(k): dict(v) for k, v in spec.function_keyword_renames.items() if k.startswith("tf.")},
        "REORDERS": {_strip(k): list(v) for k, v in spec.function_reorders.items() if k.startswith("tf.")},
        "TRANSFORMED": sorted(_strip(k) for k in spec.function_transformers if k.startswith("tf.")),
        "WARNINGS": {_strip(k): str(v) for k, v in spec.function_warnings.items() if k.startswith("tf.")},
        "DEPRECATED_MODULES": {_strip(k): str(v[1]) for k, v in spec.module_deprecations.items() if k.startswith("tf.")},
    }
    tables["UNRESOLVED_RENAMES"] = sorted(path for path, target in tables["RENAMES"].items() if not _resolve(tf, target)[1])
    lines = [
        "# From tensorflow.tools.compatibility (the tables of tf_upgrade_v2);",
        "# UNRESOLVED_RENAMES: paths whose tf_upgrade_v2 target is not in this TensorFlow.",
    ]
    for name, value in tables.items():
        if isinstance(value, list):
            lines.append(f"{name} = frozenset(" + pprint.pformat(value, width=88, compact=True) + ")")
        else:
            lines.append(f"{name}: {_TYPES[name]} = " + pprint.pformat(value, width=88))
        lines.append("")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the table is stale")
    args = parser.parse_args(argv)
    text = build_table_text()
    if args.check:
        current = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
        if current != text:
            print(f"{TABLE} is stale: run scripts/generate_tf_tables.py", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
