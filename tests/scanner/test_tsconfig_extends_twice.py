"""A base that two configs of one ``extends`` list both extend is applied once per path to it, as tsc
applies it: ``"extends": ["./a.json", "./b.json"]`` with both extending ``./base.json`` takes b's
effective options (base's, then b's own) over a's, so base's ``include`` and options come back after a's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rofl.scanner.configs import ConfigStore
from rofl.scanner.tsconfig import TsConfigFinder, load

from tests.conftest import write_tree

TYPESCRIPT = Path(
    os.environ.get("ROFL_TYPESCRIPT") or Path(__file__).resolve().parents[2] / "bench/.cache/node_modules/typescript"
)

DIAMOND = {
    "base.json": json.dumps({"include": ["base-src"], "compilerOptions": {"outDir": "out-base", "baseUrl": "."}}),
    "a.json": json.dumps({"extends": "./base.json", "include": ["a-src"], "compilerOptions": {"outDir": "out-a"}}),
    "b.json": json.dumps({"extends": "./base.json", "compilerOptions": {"composite": True}}),
    "tsconfig.json": json.dumps({"extends": ["./a.json", "./b.json"]}),
    "base-src/x.ts": "export const x = 1;\n",
    "a-src/y.ts": "export const y = 1;\n",
}

TS_ANSWER = """
const ts = require(process.argv[2]);
const file = process.argv[3];
const read = ts.readConfigFile(file, ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, require("path").dirname(file));
console.log(JSON.stringify({fileNames: parsed.fileNames, outDir: parsed.options.outDir}));
"""


def test_a_base_two_parents_extend_is_applied_for_each(tmp_path):
    write_tree(tmp_path, DIAMOND)
    config = load(str(tmp_path / "tsconfig.json"), ConfigStore(str(tmp_path)))
    assert config.include == (str(tmp_path / "base-src"),)  # b's inherited include, after a's own
    assert config.out_dir == str(tmp_path / "out-base")  # b's effective outDir is base's
    assert config.composite
    governing, _ = TsConfigFinder(ConfigStore(str(tmp_path)), str(tmp_path)).for_file(str(tmp_path / "base-src/x.ts"))
    assert governing is not None and governing.path == str(tmp_path / "tsconfig.json")
    assert config.files.count("base.json") == 1  # read twice, recorded once


def test_typescript_agrees(tmp_path):
    node = shutil.which("node")
    if node is None or not (TYPESCRIPT / "package.json").is_file():
        pytest.skip("needs node and bench/.cache/node_modules/typescript (TypeScript's own config parser)")
    write_tree(tmp_path, DIAMOND)
    (tmp_path / "answer.js").write_text(TS_ANSWER)
    proc = subprocess.run(
        [node, str(tmp_path / "answer.js"), str(TYPESCRIPT), str(tmp_path / "tsconfig.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(proc.stdout)
    config = load(str(tmp_path / "tsconfig.json"), ConfigStore(str(tmp_path)))
    assert [os.path.normpath(f) for f in answer["fileNames"]] == [str(tmp_path / "base-src/x.ts")]
    assert os.path.normpath(answer["outDir"]) == config.out_dir
