"""Findings and the registry of their codes.

Every finding carries a code (``TFM`` + three digits).  A code is declared once, as a
:class:`Rule`, next to the code that emits it (core codes here, rewrite codes in their
rewrite module, each module's ``RULES``); ``tf2migrate/rules.py`` lists them all, and
``tf2migrate --explain CODE`` prints the rule's documentation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    """How much a finding matters for the exit status.

    ``error`` findings make the run exit 1 even when nothing changes (a graph was left
    on TF1 and a human must act); ``info`` findings describe a change that was made.
    """

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class FixSafety(str, enum.Enum):
    SAFE = "safe"  # the rewrite keeps the program's meaning
    NONE = "none"  # no automatic fix; the code is left as it was


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    severity: Severity
    fix_safety: FixSafety
    what: str = ""
    why: str = ""
    example: str = ""
    instead: str = ""
    # Whole files, as Fixit's rule examples: each INVALID one yields this code, each VALID
    # one does not (left alone, or converted without it); tests/test_rules.py runs them all.
    invalid: tuple[str, ...] = ()
    valid: tuple[str, ...] = ()

    def explain(self) -> str:
        parts = [f"{self.code} ({self.name}): {self.summary}", ""]
        for title, text in (
            ("What it does", self.what),
            ("Why", self.why),
            ("Example", self.example),
            ("Use instead", self.instead),
        ):
            if text:
                parts += [f"## {title}", text.strip("\n"), ""]
        for title, examples in ((f"Files that yield {self.code}", self.invalid), ("Files that do not", self.valid)):
            if examples:
                parts += [f"## {title}", *(f"```python\n{example.rstrip()}\n```" for example in examples), ""]
        parts += [f"Severity: {self.severity.value}", f"Fix safety: {self.fix_safety.value}"]
        return "\n".join(parts)


@dataclass
class Diagnostic:
    code: str
    message: str
    path: str = "<string>"
    line: int = 1
    column: int = 1
    severity: Severity = field(default=Severity.INFO)

    def render(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"

    def as_json(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "severity": self.severity.value,
        }


# Core codes: emitted by the pipeline itself, not by a rewrite.
PARSE_ERROR = Rule(
    "TFM001",
    "parse-error",
    "The file could not be parsed as Python 3; it was left untouched.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a file that libcst cannot parse: a syntax error, or Python 2 code other than print "
    "statements (those are converted, TFM008), such as `exec code`, `except E, e`, `0777`, backticks, "
    "`ur''` or `<>`, which the message names.",
    why="A file that does not parse cannot be rewritten safely; the run goes on with the other files.",
    instead="Port the file to Python 3 first (for example with `pyupgrade` or `2to3`), then run tf2migrate again.",
    invalid=('import tensorflow as tf\nexec "x = 1"\n',),
    valid=('import tensorflow as tf\nexec("x = 1")\n',),
)
# CPython's messages for syntax only Python 2 accepts: ``print x``, ``exec code``,
# ``except E, e``, ``0777``, ``raise E, "message"``, backticks, ``ur""``, ``<>``.
_PYTHON2_TELLS = (
    "Missing parentheses in call to 'print'",
    "Missing parentheses in call to 'exec'",
    "multiple exception types must be parenthesized",
    "leading zeros in decimal integer literals are not permitted",
)


def parse_error_message(reason: str, construct: str | None = None) -> str:
    """TFM001's message; for Python 2 code, it says so and how to convert it first.
    ``construct``: the Python 2 syntax CPython's message does not name (``invalid syntax``
    at a backtick, ``<>``, ``ur''``, ``raise E, value``)."""
    message = f"cannot parse as Python 3: {reason}" + (f" ({construct})" if construct else "")
    if construct or any(tell in reason for tell in _PYTHON2_TELLS):
        message += (
            "; this is Python 2 code: convert it to Python 3 first (e.g. `2to3 -w FILE`, "
            "shipped with Python <= 3.12, or `python-modernize`), then run tf2migrate again"
        )
    return message


INTERNAL_ERROR = Rule(
    "TFM002",
    "internal-error",
    "tf2migrate failed on this file; it was left untouched.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a failure inside tf2migrate, including a rewrite whose output would not parse.",
    why="tf2migrate never writes output it cannot parse. Please report the file that triggered it.",
)
UNREADABLE_FILE = Rule(
    "TFM003",
    "unreadable-file",
    "The file could not be read or decoded; it was left untouched.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a file that vanished, cannot be read, is not valid in its declared encoding, or is a symlink.",
    why="The run goes on with the other files; nothing is written to this one.",
)
NOTEBOOK_UNSUPPORTED = Rule(
    "TFM004",
    "notebook-not-migrated",
    "The notebook could not be read, split back into its cells, or written in its own format.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a notebook that is not valid nbformat JSON, whose migrated program cannot "
    "be mapped back to its cells exactly, or whose JSON layout tf2migrate cannot reproduce.",
    why="A notebook is only rewritten when every cell comes back in place and the file changes in nothing but the migrated source lines.",
)
TF_NAME_TAKEN = Rule(
    "TFM005",
    "tf-name-taken",
    "The file binds `tf` to something other than TensorFlow; it was left untouched.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a TF1 file that imports TensorFlow under another name (`import tensorflow as T`) "
    "and also binds the name `tf` (a parameter `def helper(tf):`, a variable, an import); or one "
    "whose function binds its TF alias to something else and reads it (`def f(tf, x): return tf.log(x)`).",
    why="Migrated code refers to TensorFlow as `tf.X`; where `tf` means something else that "
    "code would not run, and renaming another object's `tf.log` to `tf.math.log` would break its call. "
    "Nothing is written rather than a file that breaks.",
    example="import tensorflow as T\n\ndef helper(tf):\n    return tf * 2",
    instead="import tensorflow as T\n\ndef helper(t):\n    return t * 2",
    invalid=("import tensorflow as T\nx = T.placeholder(T.float32)\n\ndef helper(tf):\n    return tf * 2\n",),
    valid=("import tensorflow as T\nx = T.placeholder(T.float32)\n\ndef helper(t):\n    return t * 2\n",),
)
TF_IMPORTED_LOCALLY = Rule(
    "TFM006",
    "tf-imported-locally",
    "TensorFlow is imported only inside functions, classes or blocks; the file was left untouched.",
    Severity.INFO,
    FixSafety.NONE,
    what="Reports each import of TensorFlow in a file that has no plain TensorFlow import at the "
    "top of the module (`def f(x): import tensorflow as tf; ...`, `try: import tensorflow as tf`).",
    why="tf2migrate learns which names are TensorFlow from the module's top-level imports; with none, "
    "it does not know the file's TF code and leaves all of it as written, TF1 names included.",
    example="def log_of(x):\n    import tensorflow as tf\n    return tf.log(x)",
    instead="import tensorflow as tf\n\ndef log_of(x):\n    return tf.log(x)",
    invalid=("def log_of(x):\n    import tensorflow as tf\n    return tf.log(x)\n",),
    valid=("import tensorflow as tf\n\ndef log_of(x):\n    return tf.log(x)\n",),
)
TF_STAR_IMPORT = Rule(
    "TFM007",
    "tf-star-import",
    "TensorFlow's names are imported with `*`; the file was left untouched.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports `from tensorflow import *` (or a star import of another TensorFlow module, "
    "`tensorflow.compat` and `tensorflow.keras` aside), and each bare use of a name it binds "
    "that TF2 lacks or changed (`placeholder(...)`, `log(x)`, `Session()`).",
    why="tf2migrate knows TensorFlow code by the names imports spell out; bare names from a star "
    "import look like the file's own, so they would be neither renamed nor converted and fail, "
    "or mean something else, under TF2. Nothing is written rather than a file half migrated.",
    example="from tensorflow import *\n\ny = log(constant(2.0))",
    instead="import tensorflow as tf\n\ny = tf.log(tf.constant(2.0))",
    invalid=("from tensorflow import *\n\ny = log(constant(2.0))\n",),
    valid=("import tensorflow as tf\n\ny = tf.log(tf.constant(2.0))\n",),
)
RULES = [PARSE_ERROR, INTERNAL_ERROR, UNREADABLE_FILE, NOTEBOOK_UNSUPPORTED, TF_NAME_TAKEN, TF_IMPORTED_LOCALLY, TF_STAR_IMPORT]
