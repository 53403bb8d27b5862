"""SARIF 2.1.0 output, the format GitHub code scanning reads.

Artifacts are named by URIs relative to ``%SRCROOT%`` (the directory tf2migrate ran
in, given in ``originalUriBaseIds``), percent-encoded; a file outside it gets an
absolute ``file:`` URI.  A notebook finding names the ``.ipynb`` file itself as its
artifact — a path with ``:cell 3`` appended is no file — and carries its cell and the
line in that cell in the message and in the result's properties.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

from tf2migrate.diagnostics import Diagnostic, Severity
from tf2migrate.rules import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
BASE_ID = "%SRCROOT%"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_NOTEBOOK_CELL = re.compile(r"^(?P<path>.*\.ipynb):cell (?P<cell>\d+)$")


def sarif_log(findings: list[Diagnostic], version: str, root: Path | None = None) -> dict:
    root = Path(os.path.abspath(root or Path.cwd()))
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tf2migrate",
                        "version": version,
                        "informationUri": "https://pypi.org/project/tf2migrate/",
                        "rules": [
                            {
                                "id": r.code,
                                "name": r.name,
                                "shortDescription": {"text": r.summary},
                                "fullDescription": {"text": r.what or r.summary},
                                "help": {"text": r.explain()},
                                "defaultConfiguration": {"level": _LEVELS[r.severity]},
                            }
                            for r in rules
                        ],
                    }
                },
                "originalUriBaseIds": {BASE_ID: {"uri": root.as_uri() + "/"}},
                "results": [_result(d, index[d.code], root) for d in findings if d.code in index],
            }
        ],
    }


def _result(d: Diagnostic, rule_index: int, root: Path) -> dict:
    result = {"ruleId": d.code, "ruleIndex": rule_index, "level": _LEVELS[d.severity], "message": {"text": d.message}}
    path, cell = d.path, _NOTEBOOK_CELL.match(d.path)
    region = {"startLine": max(d.line, 1), "startColumn": max(d.column, 1)}
    if cell:
        path = cell["path"]
        result["message"] = {"text": f"cell {cell['cell']}, line {d.line}: {d.message}"}
        result["properties"] = {"cell": int(cell["cell"]), "cellLine": d.line, "cellColumn": d.column}
        region = {"startLine": 1}  # the lines of the cell are not lines of the .ipynb's JSON
    location = {"artifactLocation": _artifact(path, root), "region": region}
    result["locations"] = [{"physicalLocation": location}]
    return result


def _artifact(path: str, root: Path) -> dict:
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": BASE_ID}
