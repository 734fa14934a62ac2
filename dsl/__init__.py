"""rulecraft: a language and compiler for tabletop-game terrain and situational rules.

The pipeline: text -> `parser` (AST, dsl/nodes.py) -> `analysis` (checked model, dsl/model/)
-> `checks` (logical problems) -> `emitter` (a Python resolver module) and `cards` (reference
cards).  `compiler` joins the stages; `cli` is the command line.
"""

__version__ = "0.2.0"
