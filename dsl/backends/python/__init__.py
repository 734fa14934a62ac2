"""The Python backend: a checked book written as a module that imports the runtime (dsl/runtime/).

`module.py` lays the module out (its constants, inputs, tables, book and public API);
`rules.py` writes each rule out as code; `expressions.py` writes expressions.
"""

from dsl.backends.python.module import RUNTIME_PACKAGE, STANDALONE_RUNTIME, emit

__all__ = ["RUNTIME_PACKAGE", "STANDALONE_RUNTIME", "emit"]
