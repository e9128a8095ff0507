"""What the embedded kernel costs a process besides its facts: no shared library it does not use.

A rule id is a BLAKE2 digest of the rule's text.  ``hashlib`` would load OpenSSL's libcrypto to offer
algorithms the kernel never calls (3.7 MB resident, a tenth of a small program's whole process), so the
kernel takes BLAKE2 from CPython's own module; and it logs each evaluation's cost only when the program
has imported ``logging`` (1 MB), since nothing else can have turned that log on.  The ids must stay what they were: stores, baselines and
`rofl explain` name rules by them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from rofl.engine.parse import parse_program
from rofl.engine.reflect import clause_text, rule_id

EVALUATE = """
import json, sys
from rofl.engine.kernel import Kernel
k = Kernel(budget=10**9)
k.load_text("edge(1, 2). edge(2, 3). path(X, Y) :- edge(X, Y). path(X, Z) :- edge(X, Y), path(Y, Z).")
rows = k.evaluate().rows("path")
print(json.dumps({"rows": len(rows), "modules": sorted(sys.modules)}))
"""


def test_a_kernel_evaluates_without_loading_openssl_or_logging() -> None:
    done = subprocess.run([sys.executable, "-c", EVALUATE], capture_output=True, text=True, check=True, timeout=120)
    found = json.loads(done.stdout)
    assert found["rows"] == 3
    assert "_hashlib" not in found["modules"]
    assert "logging" not in found["modules"]  # only a program that logs can have turned the kernel's log on


def test_rule_ids_are_the_blake2b_digest_of_the_rule_text() -> None:
    program = parse_program('p(X) :- q(X, "é"), not r(X). s(1) :- t(_), X = 1.')
    assert len(program) == 2
    for clause in program:
        text = clause_text(clause).encode("utf-8")
        assert rule_id(clause) == "r" + hashlib.blake2b(text, digest_size=8).hexdigest()
