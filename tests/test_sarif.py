"""SARIF output: valid against the official SARIF 2.1.0 schema, with artifact URIs that
GitHub code scanning resolves (relative to %SRCROOT%, percent-encoded, notebooks as files).

``tests/data/sarif-schema-2.1.0.json`` is the OASIS schema (sarif-spec repository,
``sarif-2.1/schema/sarif-schema-2.1.0.json``, errata 01), shipped so the check runs offline.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import nbformat
import pytest

from tf2migrate.cli import main

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
# RFC 3986 characters, "%" only as a percent-encoding: the schema's "uri" formats, checked
# here without the optional rfc3987 package jsonschema would need for them.
_URI_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")
FORMATS = jsonschema.FormatChecker(formats=())
FORMATS.checks("uri-reference")(lambda value: _URI_REFERENCE.fullmatch(value) is not None)
FORMATS.checks("uri")(
    lambda value: _URI_REFERENCE.fullmatch(value) is not None and re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", value) is not None
)
TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})\n"


def sarif(capsys, *argv) -> dict:
    """Run with --format sarif; the log, after checking it against the schema."""
    assert main(["-j", "1", "--format", "sarif", *argv]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft4Validator, format_checker=FORMATS)
    return log


def test_the_uri_check_rejects_what_code_scanning_rejects():
    assert not FORMATS.conforms("n.ipynb:cell 2", "uri-reference")
    assert not FORMATS.conforms("my src/a.py", "uri-reference")
    assert FORMATS.conforms("my%20src/a.py", "uri-reference")
    assert not FORMATS.conforms("my%20src/a.py", "uri")


def locations(log: dict) -> list[dict]:
    return [r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"]]


def test_relative_uris_with_a_base_id_and_percent_encoding(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my src").mkdir()
    (tmp_path / "my src" / "a#1.py").write_text(TF1)
    log = sarif(capsys, ".")
    run = log["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}
    artifacts = {json.dumps(loc["artifactLocation"]) for loc in locations(log)}
    assert artifacts == {json.dumps({"uri": "my%20src/a%231.py", "uriBaseId": "%SRCROOT%"})}
    assert {r["ruleId"] for r in run["results"]} >= {"TFM101", "TFM102"}


def test_file_outside_the_base_gets_an_absolute_file_uri(tmp_path, capsys, monkeypatch):
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    (tmp_path / "x y.py").write_text(TF1)
    log = sarif(capsys, str(tmp_path / "x y.py"))
    assert {loc["artifactLocation"]["uri"] for loc in locations(log)} == {(tmp_path / "x y.py").as_uri()}
    assert all("%20" in loc["artifactLocation"]["uri"] for loc in locations(log))


def test_notebook_findings_name_the_ipynb_with_cell_and_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# m"), nbformat.v4.new_code_cell(TF1)]
    nbformat.write(nb, "n.ipynb")
    log = sarif(capsys, "n.ipynb")
    results = log["runs"][0]["results"]
    assert {loc["artifactLocation"]["uri"] for loc in locations(log)} == {"n.ipynb"}
    placeholder = next(r for r in results if r["ruleId"] == "TFM101")
    assert placeholder["message"]["text"].startswith("cell 2, line 2: ")
    assert placeholder["properties"] == {"cell": 2, "cellLine": 2, "cellColumn": 5}


@pytest.mark.parametrize("content", ["exec 'python 2'\n", "\xff"], ids=["parse-error", "undecodable"])
def test_error_findings_are_valid_sarif(tmp_path, capsys, monkeypatch, content):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "bad.py"
    if content == "\xff":
        path.write_bytes(b"import tensorflow\n\xff\n")
    else:
        path.write_text("import tensorflow as tf\n" + content)
    log = sarif(capsys, "bad.py")
    assert [r["level"] for r in log["runs"][0]["results"]] == ["error"]
