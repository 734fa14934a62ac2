"""The JavaScript backend: a checked book written as an ES module (and its `.d.ts`) that imports
the JavaScript runtime (dsl/backends/js/runtime/, whose modules mirror dsl/runtime/'s).

`module.py` writes the module, `expressions.py` its expressions, `types.py` its declarations,
`package.py` the files of the npm package a build writes (`rulecraft build --target js`).
"""

from dsl.backends.js.module import emit

__all__ = ["emit"]
