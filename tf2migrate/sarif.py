"""SARIF 2.1.0 output, the format GitHub code scanning reads."""

from __future__ import annotations

from pathlib import Path

from tf2migrate.diagnostics import Diagnostic, Severity, all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_log(findings: list[Diagnostic], version: str) -> dict:
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
                "results": [
                    {
                        "ruleId": d.code,
                        "ruleIndex": index[d.code],
                        "level": _LEVELS[d.severity],
                        "message": {"text": d.message},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": Path(d.path).as_posix()},
                                    "region": {"startLine": max(d.line, 1), "startColumn": max(d.column, 1)},
                                }
                            }
                        ],
                    }
                    for d in findings
                    if d.code in index
                ],
            }
        ],
    }
