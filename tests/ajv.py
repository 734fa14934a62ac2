"""ajv, in strict mode (draft 2020-12), from Python: the JSON Schemas of the data contract are held
to what a JavaScript app's validator accepts, not only to Python's `jsonschema`.

ajv is installed from npm into tests/js (`npm ci`, package-lock.json; node_modules is not
committed); .ci/run installs Debian's nodejs and npm and sets RULECRAFT_REQUIRE_NODE=1, so there
the tests fail rather than skip without node.  Without node on a developer's machine they are
skipped, saying why; with node, a missing ajv in tests/js/node_modules is installed (`npm ci`)
before the first use.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parent / "js"


@dataclass(frozen=True)
class Checked:
    compiled: list[str]
    schema_errors: dict[str, str]
    invalid: list[dict[str, Any]]
    checked: int


@functools.cache
def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("RULECRAFT_REQUIRE_NODE") == "1":
            pytest.fail("node is not installed, and RULECRAFT_REQUIRE_NODE=1 says the ajv tests must run")
        pytest.skip("node is not installed: ajv (JavaScript) cannot check the schemas here; CI installs it")
    if not (JS / "node_modules" / "ajv").is_dir():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("node is installed but npm is not: install npm, then `npm ci` in tests/js")
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.fail(f"`npm ci` in tests/js failed:\n{done.stdout}\n{done.stderr}")
    return node


def ajv_check(schemas: dict[str, Any], documents: list[tuple[str, str, Any]]) -> Checked:
    """Compile each schema with ajv in strict mode and validate each (schema name, label, data)."""
    request = {"schemas": schemas, "documents": [{"schema": s, "label": label, "data": d} for s, label, d in documents]}
    done = subprocess.run(
        [_node(), str(JS / "validate.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    return Checked(answer["compiled"], answer["schema_errors"], answer["invalid"], answer["checked"])
