"""`rulecraft lsp`: the language server editors attach to (dsl/lsp/server.py), and what it is
built on: the index of declarations and uses (index.py) and what hover and completion say
(info.py).  Only server.py needs the `workbench` extra (pygls)."""
