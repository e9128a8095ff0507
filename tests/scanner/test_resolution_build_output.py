"""Build output mapped to source, as a built install would resolve a workspace import.

Fixtures are modelled on create-t3-turbo (a shared base in ``tooling/typescript`` setting
``"outDir": "${configDir}/dist"``), Effect-TS/effect before v4 (a solution ``tsconfig.json`` with
``files: []`` whose ``references`` name ``tsconfig.src.json``/``tsconfig.test.json``), packages
built by a bundler with no tsconfig saying where (``dist/esm/x.mjs`` from ``src/x.ts``), vitest's
entry stubs (``node.d.ts`` holding ``export * from './dist/node.js'``) and tests importing their
package's own build output (``../dist/core/x.js``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.scanner.configs import ConfigStore
from rofl.scanner.tsconfig import Inputs, load

from tests.scanner.conftest import scan_json
from tests.scanner.test_resolution_incremental import rescan
from tests.scanner.test_resolve import answers, imports

WORKSPACE = {"pnpm-workspace.yaml": "packages:\n  - packages/*\n  - apps/*\n  - tooling/*\n"}


def pkg(**fields: object) -> str:
    return json.dumps(fields)


# -- ${configDir} ------------------------------------------------------------------------------------


def test_config_dir_in_a_shared_base_is_the_folder_of_the_config_that_extends_it(repo, out):
    src = repo(
        {
            **WORKSPACE,
            "tooling/typescript/package.json": pkg(name="@acme/tsconfig"),
            "tooling/typescript/base.json": json.dumps(
                {"compilerOptions": {"baseUrl": "${configDir}", "paths": {"~/*": ["${configDir}/src/*"]}}}
            ),
            # the build folder is no name a bundler uses: only the tsconfig leads from it to src/
            "tooling/typescript/compiled-package.json": json.dumps(
                {
                    "extends": "./base.json",
                    "compilerOptions": {"outDir": "${configDir}/.tsc", "rootDir": "${CONFIGDIR}/src"},
                }
            ),
            "packages/api/package.json": pkg(name="@acme/api", exports={".": {"types": "./.tsc/index.d.ts"}}),
            "packages/api/tsconfig.json": json.dumps(
                {"extends": "../../tooling/typescript/compiled-package.json", "include": ["src"]}
            ),
            "packages/api/src/index.ts": "",
            "apps/web/package.json": pkg(name="web", dependencies={"@acme/api": "workspace:*"}),
            # by package name, with nothing installed: the workspace package a package manager would link
            "apps/web/tsconfig.json": json.dumps({"extends": "@acme/tsconfig/base.json"}),
            "apps/web/src/page.ts": imports("@acme/api", "~/util", "lib/helper"),
            "apps/web/src/util.ts": "",
            "apps/web/lib/helper.ts": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "apps/web/src/page.ts") == {
        "@acme/api": ("file", "packages/api/src/index.ts"),  # outDir and rootDir of packages/api, not of tooling/
        "~/util": ("file", "apps/web/src/util.ts"),  # paths target relative to apps/web
        "lib/helper": ("file", "apps/web/lib/helper.ts"),  # baseUrl apps/web
    }
    # the base's package renamed: apps/web extends nothing any more
    (src / "tooling/typescript/package.json").write_text(pkg(name="@other/tsconfig"))
    rescan(src, out)
    assert answers(out, "apps/web/src/page.ts") == {
        "@acme/api": ("file", "packages/api/src/index.ts"),
        "~/util": ("external", "~"),
        "lib/helper": ("external", "lib"),
    }


def test_config_dir_is_expanded_in_every_path_option_and_input_spec(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "base/tsconfig.json").write_text(
        json.dumps(
            {
                "include": ["${configDir}/src", "shared/*.ts"],
                "compilerOptions": {
                    "outDir": "${configDir}/dist",
                    "declarationDir": "${configDir}/types",
                    "rootDir": "./root",
                    "composite": True,
                },
            }
        )
    )
    (tmp_path / "pkg/tsconfig.json").write_text(
        json.dumps({"extends": "../base/tsconfig.json", "references": [{"path": "../other"}, {"path": "./t.json"}]})
    )
    config = load(str(tmp_path / "pkg/tsconfig.json"), ConfigStore(str(tmp_path)))
    assert config.out_dir == str(tmp_path / "pkg/dist")
    assert config.declaration_dir == str(tmp_path / "pkg/types")
    assert config.root_dir == str(tmp_path / "base/root")  # no ${configDir}: relative to the base that sets it
    assert config.composite is True
    assert config.inputs == (str(tmp_path / "pkg/src"), str(tmp_path / "base/shared/*.ts"))
    assert config.references == (str(tmp_path / "other/tsconfig.json"), str(tmp_path / "pkg/t.json"))
    base = load(str(tmp_path / "base/tsconfig.json"), ConfigStore(str(tmp_path)))
    assert base.out_dir == str(tmp_path / "base/dist") and base.references == ()


# -- the config that builds the package --------------------------------------------------------------


EFFECT_LIKE = {
    **WORKSPACE,
    "tsconfig.base.json": json.dumps({"compilerOptions": {"strict": True}}),
    "packages/core/package.json": pkg(
        name="@fx/core",
        exports={
            "./package.json": "./package.json",
            ".": {"types": "./.out/dts/index.d.ts", "default": "./.out/esm/index.js"},
            "./*": {"types": "./.out/dts/*.d.ts", "default": "./.out/esm/*.js"},
            "./internal/*": None,
        },
    ),
    # a solution file: it builds nothing itself, its references do
    "packages/core/tsconfig.json": json.dumps(
        {"files": [], "references": [{"path": "tsconfig.source.json"}, {"path": "tsconfig.test.json"}]}
    ),
    # no rootDir: TypeScript takes the common folder of the inputs, here the include's "source"
    "packages/core/tsconfig.source.json": json.dumps(
        {
            "extends": "../../tsconfig.base.json",
            "include": ["source"],
            "compilerOptions": {"outDir": ".out/esm", "declarationDir": ".out/dts"},
        }
    ),
    "packages/core/tsconfig.test.json": json.dumps(
        {"extends": "../../tsconfig.base.json", "include": ["test"], "references": [{"path": "tsconfig.source.json"}]}
    ),
    "packages/core/source/index.ts": "",
    "packages/core/source/Effect.ts": "",
    "packages/core/source/internal/fiber.ts": "",
    "packages/core/test/Effect.test.ts": imports("../.out/esm/Effect.js"),
    "apps/app/package.json": pkg(name="app", dependencies={"@fx/core": "workspace:^"}),
    "apps/app/main.ts": imports("@fx/core", "@fx/core/Effect"),
    "apps/app/blocked.ts": imports("@fx/core/internal/fiber"),
    # a solution's reference to another package builds that package, not this one
    "packages/a/package.json": pkg(name="a", exports={".": {"types": "./.out/index.d.ts"}}),
    "packages/a/tsconfig.json": json.dumps({"files": [], "references": [{"path": "../b"}]}),
    "packages/a/index.ts": "",
    "packages/b/package.json": pkg(name="b"),
    "packages/b/tsconfig.json": json.dumps({"compilerOptions": {"outDir": "../a/.out", "rootDir": "."}}),
    "packages/b/index.ts": "",
    "apps/x/package.json": pkg(name="x", dependencies={"a": "workspace:*"}),
    "apps/x/main.ts": imports("a"),
}


def test_the_configs_a_solution_file_references_map_build_output_to_sources(repo, out):
    src = repo(EFFECT_LIKE)
    scan_json(src, out)
    assert answers(out, "apps/app/main.ts") == {
        "@fx/core": ("file", "packages/core/source/index.ts"),
        "@fx/core/Effect": ("file", "packages/core/source/Effect.ts"),
    }
    # the package's own test importing its build output maps the same way
    assert answers(out, "packages/core/test/Effect.test.ts") == {
        "../.out/esm/Effect.js": ("file", "packages/core/source/Effect.ts")
    }
    # a subpath that exports blocks ("./internal/*": null) is no file, as for TypeScript
    assert answers(out, "apps/app/blocked.ts") == {"@fx/core/internal/fiber": ("workspace", "packages/core")}
    assert answers(out, "apps/x/main.ts") == {"a": ("workspace", "packages/a")}


def test_editing_the_referenced_build_config_re_resolves_its_importers(repo, out):
    src = repo({**EFFECT_LIKE, "apps/app/other.ts": imports("./main")})
    scan_json(src, out)
    config = src / "packages/core/tsconfig.source.json"
    config.write_text(json.dumps({"include": ["source"], "compilerOptions": {"outDir": ".built"}}))
    assert rescan(src, out) == (0, 2)  # main.ts and the test; other.ts read no config
    assert answers(out, "apps/app/main.ts") == {
        "@fx/core": ("workspace", "packages/core"),
        "@fx/core/Effect": ("workspace", "packages/core"),
    }
    assert answers(out, "packages/core/test/Effect.test.ts") == {"../.out/esm/Effect.js": ("unresolved",)}
    config.write_text(json.dumps({"include": ["source"], "compilerOptions": {"outDir": ".out/esm"}}))
    assert rescan(src, out) == (0, 2)
    assert answers(out, "apps/app/main.ts")["@fx/core/Effect"] == ("file", "packages/core/source/Effect.ts")
    # a solution file that stops referencing it: only the fallback names are left
    (src / "packages/core/tsconfig.json").write_text(json.dumps({"files": [], "references": []}))
    assert rescan(src, out) == (0, 2)
    assert answers(out, "apps/app/main.ts")["@fx/core/Effect"] == ("workspace", "packages/core")


def test_a_build_tsconfig_that_is_not_the_nearest_one(repo, out):
    src = repo(
        {
            **WORKSPACE,
            "packages/ui/package.json": pkg(name="ui", main="./.build/index.js", types="./.build/index.d.ts"),
            "packages/ui/tsconfig.json": json.dumps({"include": ["src", "test"]}),  # the editor's config: no emit
            "packages/ui/tsconfig.build.json": json.dumps(
                {"extends": "./tsconfig.json", "include": ["lib"], "compilerOptions": {"outDir": ".build"}}
            ),
            "packages/ui/lib/index.tsx": "",
            "apps/x/package.json": pkg(name="x", dependencies={"ui": "workspace:*"}),
            "apps/x/main.ts": imports("ui"),
        }
    )
    scan_json(src, out)
    assert answers(out, "apps/x/main.ts") == {"ui": ("file", "packages/ui/lib/index.tsx")}


# -- same stem -----------------------------------------------------------------------------------------


BUNDLED = {
    **WORKSPACE,
    "packages/kit/package.json": pkg(
        name="kit",
        exports={
            ".": {
                "types": "./dist/types/index.d.ts",
                "import": "./dist/esm/index.mjs",
                "require": "./dist/cjs/index.cjs",
            },
            "./feature": "./lib/feature.js",
            "./node": {"types": "./node.d.ts", "default": "./dist/node.js"},
            "./both": "./dist/both.js",
            "./deep": "./build/es/core/deep.js",
            "./plain": "./dist/plain.js",
        },
    ),
    "packages/kit/src/index.ts": "",
    "packages/kit/src/feature/index.ts": "",
    "packages/kit/node.d.ts": "export * from './dist/node.js'\n",  # an entry stub, never the source
    "packages/kit/src/both.ts": "",
    "packages/kit/both.ts": "",
    "packages/kit/src/core/deep.tsx": "",
    "packages/kit/src/plain.js": "",
    "packages/kit/test/deep.test.ts": imports("../build/es/core/deep.js", "../dist/missing.js", "../dist/plain.js"),
    "apps/x/package.json": pkg(name="x", dependencies={"kit": "workspace:*"}),
    "apps/x/main.ts": imports("kit", "kit/feature", "kit/node", "kit/both", "kit/deep", "kit/plain"),
    "apps/x/cjs.cts": imports("kit"),
}


def test_build_output_with_no_tsconfig_saying_maps_to_the_one_source_of_that_stem(repo, out):
    src = repo(BUNDLED)
    scan_json(src, out)
    assert answers(out, "apps/x/main.ts") == {
        "kit": ("file", "packages/kit/src/index.ts"),
        "kit/feature": ("file", "packages/kit/src/feature/index.ts"),  # a folder's index has the stem too
        "kit/node": ("file", "packages/kit/node.d.ts"),  # the stub itself, as TypeScript finds it
        "kit/both": ("workspace", "packages/kit"),  # src/both.ts or both.ts: never a guess
        "kit/deep": ("file", "packages/kit/src/core/deep.tsx"),
        "kit/plain": ("file", "packages/kit/src/plain.js"),
    }
    assert answers(out, "apps/x/cjs.cts") == {"kit": ("file", "packages/kit/src/index.ts")}
    # the stub's own import of the build: no TypeScript source has the stem, the stub is no candidate
    assert answers(out, "packages/kit/node.d.ts") == {"./dist/node.js": ("unresolved",)}
    assert answers(out, "packages/kit/test/deep.test.ts") == {
        "../build/es/core/deep.js": ("file", "packages/kit/src/core/deep.tsx"),
        "../dist/missing.js": ("unresolved",),
        "../dist/plain.js": ("file", "packages/kit/src/plain.js"),
    }


def test_a_second_source_of_the_same_stem_makes_it_ambiguous_and_removing_it_resolves_again(repo, out):
    src = repo(BUNDLED)
    scan_json(src, out)
    (src / "packages/kit/index.ts").write_text("")
    rescan(src, out)
    assert answers(out, "apps/x/main.ts")["kit"] == ("workspace", "packages/kit")
    assert answers(out, "apps/x/cjs.cts") == {"kit": ("workspace", "packages/kit")}
    (src / "packages/kit/src/index.ts").unlink()
    rescan(src, out)
    assert answers(out, "apps/x/main.ts")["kit"] == ("file", "packages/kit/index.ts")


BUILD_FOLDER = st.sampled_from(["dist", "lib", "build", "out", "esm", "cjs"])
SUBFOLDER = st.sampled_from(["", "esm/", "cjs/", "types/", "es/"])
OUTPUT = st.sampled_from([".js", ".mjs", ".cjs", ".d.ts", ".d.mts"])
SOURCE = st.sampled_from([".ts", ".tsx", ".mts", ".cts", ".js", "/index.ts"])
PLACE = st.sampled_from(["src/", ""])
STEM = st.sampled_from(["a", "core/b", "x/y/c"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    build=BUILD_FOLDER,
    sub=SUBFOLDER,
    output=OUTPUT,
    stem=STEM,
    sources=st.lists(st.tuples(PLACE, STEM, SOURCE), max_size=4, unique=True),
)
@pytest.mark.slow
def test_same_stem_answers_exactly_when_one_module_has_the_stem(tmp_path_factory, build, sub, output, stem, sources):
    root = tmp_path_factory.mktemp("stem")
    files = {
        **WORKSPACE,
        "packages/p/package.json": pkg(name="p", exports={".": f"./{build}/{sub}{stem}{output}"}),
        "apps/x/package.json": pkg(name="x", dependencies={"p": "workspace:*"}),
        "apps/x/main.ts": imports("p"),
    }
    # independent oracle: the modules (paths without extension) that could have been built to the stem
    modules = set()
    for place, source_stem, ext in sources:
        path = f"packages/p/{place}{source_stem}{ext}"
        files[path] = ""
        is_js = ext == ".js"
        if source_stem == stem and not (is_js and place == ""):
            modules.add((path, os.path.splitext(path)[0]))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    facts = tmp_path_factory.mktemp("facts")
    scan_json(root, facts)
    got = answers(facts, "apps/x/main.ts")["p"]
    if len({m for _, m in modules}) == 1:
        assert got[0] == "file" and got[1] in {p for p, _ in modules}
    else:
        assert got == ("workspace", "packages/p")


# -- the tsconfig that governs a file, as tsserver picks it ------------------------------------------


GOVERNED = {
    **WORKSPACE,
    # Effect: a root solution whose tests config maps the packages to their sources, internals included
    "tsconfig.json": json.dumps({"include": [], "references": [{"path": "tsconfig.tests.json"}]}),
    "tsconfig.tests.json": json.dumps(
        {
            "include": ["./packages/*/test/**/*.ts"],
            "compilerOptions": {"paths": {"fx": ["./packages/fx/src/index.ts"], "fx/*": ["./packages/fx/src/*.ts"]}},
        }
    ),
    "packages/fx/package.json": pkg(name="fx", exports={".": "./src/index.ts", "./internal/*": None}),
    "packages/fx/tsconfig.json": json.dumps({"include": ["src"]}),  # the nearest, but not the tests'
    "packages/fx/src/index.ts": "",
    "packages/fx/src/internal/fiber.ts": "",
    "packages/fx/src/uses.ts": imports("fx/internal/fiber"),
    "packages/fx/test/fiber.test.ts": imports("fx/internal/fiber"),
    # vitest: a folder's tsconfig that leaves a file out; the one above takes every .ts and has paths
    "test/tsconfig.json": json.dumps(
        {"include": ["./**/*.ts"], "compilerOptions": {"paths": {"#test-utils": ["./utils/index.ts"]}}}
    ),
    "test/utils/index.ts": "",
    "test/browser/tsconfig.json": json.dumps({"include": ["specs"]}),
    "test/browser/settings.ts": imports("#test-utils"),
    "test/browser/specs/a.test.ts": imports("#test-utils"),
    # Vite's template: a solution whose app config has the paths, the node config takes vite.config.ts
    "apps/site/package.json": pkg(name="site"),
    "apps/site/tsconfig.json": json.dumps(
        {"files": [], "references": [{"path": "./tsconfig.app.json"}, {"path": "./tsconfig.node.json"}]}
    ),
    "apps/site/tsconfig.app.json": json.dumps({"include": ["src"], "compilerOptions": {"paths": {"@/*": ["./src/*"]}}}),
    "apps/site/tsconfig.node.json": json.dumps({"include": ["vite.config.ts"]}),
    "apps/site/src/main.ts": imports("@/util"),
    "apps/site/src/util.ts": "",
    "apps/site/vite.config.ts": imports("@/util"),
}


def test_a_file_is_governed_by_the_nearest_tsconfig_that_takes_it_itself_or_through_references(repo, out):
    src = repo(GOVERNED)
    scan_json(src, out)
    # the tests config of the root solution: the blocked internal subpath resolves through its paths
    assert answers(out, "packages/fx/test/fiber.test.ts") == {
        "fx/internal/fiber": ("file", "packages/fx/src/internal/fiber.ts")
    }
    assert answers(out, "packages/fx/src/uses.ts") == {"fx/internal/fiber": ("workspace", "packages/fx")}
    assert answers(out, "test/browser/settings.ts") == {"#test-utils": ("file", "test/utils/index.ts")}
    assert answers(out, "test/browser/specs/a.test.ts") == {"#test-utils": ("unresolved",)}
    assert answers(out, "apps/site/src/main.ts") == {"@/util": ("file", "apps/site/src/util.ts")}
    assert answers(out, "apps/site/vite.config.ts") == {"@/util": ("external", "@/util")}


def test_changing_which_files_a_tsconfig_takes_re_resolves_them(repo, out):
    src = repo(GOVERNED)
    scan_json(src, out)
    (src / "test/browser/tsconfig.json").write_text(json.dumps({"include": ["specs", "*.ts"]}))
    assert rescan(src, out) == (0, 2)  # both files of test/browser read it
    assert answers(out, "test/browser/settings.ts") == {"#test-utils": ("unresolved",)}
    (src / "apps/site/tsconfig.app.json").write_text(
        json.dumps({"include": ["src", "vite.config.ts"], "compilerOptions": {"paths": {"@/*": ["./src/*"]}}})
    )
    rescan(src, out)
    assert answers(out, "apps/site/vite.config.ts") == {"@/util": ("file", "apps/site/src/util.ts")}


# -- which files a config takes, against TypeScript's own config parser ------------------------------


TYPESCRIPT = Path(
    os.environ.get("ROFL_TYPESCRIPT") or Path(__file__).resolve().parents[2] / "bench/.cache/node_modules/typescript"
)
FILE_NAMES = r"""
const ts = require(process.argv[2]);
const path = require("path");
const rl = require("readline").createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const cfg = JSON.parse(line);
  const parsed = ts.getParsedCommandLineOfConfigFile(cfg, {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {}});
  process.stdout.write(JSON.stringify(parsed ? parsed.fileNames : []) + "\n");
});
"""
# no two files that TypeScript would take only one of (a.ts beside a.d.ts or a.js), no .min.js
INPUT_TREE = [
    "pkg/src/a.ts",
    "pkg/src/b.tsx",
    "pkg/src/c.js",
    "pkg/src/d.d.ts",
    "pkg/src/f.mts",
    "pkg/src/g.cjs",
    "pkg/src/deep/er/h.ts",
    "pkg/src/.hidden/i.ts",
    "pkg/src/.j.ts",
    "pkg/src/node_modules/m/k.ts",
    "pkg/src.v2/l.ts",
    "pkg/test/a.test.ts",
    "pkg/test/fixtures/app/x.ts",
    "pkg/dist/out.js",
    "pkg/lib/n.jsx",
    "pkg/top.ts",
    "shared/s.ts",
    "shared/sub/t.tsx",
]
INPUT_SPECS = [
    "src",
    "src/**/*",
    "src/*",
    "**/*",
    "**/*.ts",
    "*.ts",
    "?est",
    "t*",
    "test/fixtures",
    "../shared",
    "../shared/**/*.tsx",
    "${configDir}/src",
    "${configDir}/test",
    "dist",
    "lib/**/*.jsx",
    "src/.hidden/*",
    "src/node_modules/**/*",
    "src.v2",
    "src/deep/**/h.ts",
]
spec_lists = st.one_of(st.none(), st.lists(st.sampled_from(INPUT_SPECS), max_size=3, unique=True))
input_configs = st.fixed_dictionaries(
    {
        "include": spec_lists,
        "exclude": spec_lists,
        "files": st.one_of(st.none(), st.lists(st.sampled_from(["src/a.ts", "top.ts", "dist/out.js"]), max_size=2)),
        "allowJs": st.one_of(st.none(), st.booleans()),
        "outDir": st.one_of(st.none(), st.sampled_from(["dist", "${configDir}/dist", "src/deep"])),
    }
)


def config_json(config: dict, extends: str | None = None) -> str:
    out: dict = {k: config[k] for k in ("include", "exclude", "files") if config[k] is not None}
    options = {k: config[k] for k in ("allowJs", "outDir") if config[k] is not None}
    if options:
        out["compilerOptions"] = options
    if extends is not None:
        out["extends"] = extends
    return json.dumps(out)


@pytest.fixture(scope="module")
def file_names(tmp_path_factory):
    node = shutil.which("node")
    if node is None or not (TYPESCRIPT / "package.json").is_file():
        pytest.skip("needs node and bench/.cache/node_modules/typescript (TypeScript's own config parser)")
    root = tmp_path_factory.mktemp("inputs")
    (root / "oracle.js").write_text(FILE_NAMES)
    for name in INPUT_TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("export {};\n")
    proc = subprocess.Popen(
        [node, str(root / "oracle.js"), str(TYPESCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )

    def ask(config: Path) -> set[str]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(str(config)) + "\n")
        proc.stdin.flush()
        return {os.path.relpath(p, root) for p in json.loads(proc.stdout.readline())}

    yield root, ask
    proc.terminate()
    proc.wait()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(child=input_configs, base=input_configs, extends=st.booleans())
def test_the_files_a_config_takes_are_typescripts_file_names(file_names, child, base, extends):
    """For random include/exclude/files/allowJs/outDir in a config and the base it extends, the files
    ``Inputs.holds`` takes (which decides the tsconfig that governs a file) are TypeScript's ``fileNames``."""
    root, ask = file_names
    (root / "base").mkdir(exist_ok=True)
    (root / "base/tsconfig.base.json").write_text(config_json(base))
    config = root / "pkg/tsconfig.json"
    config.write_text(config_json(child, "../base/tsconfig.base.json" if extends else None))
    truth = ask(config) & set(INPUT_TREE)
    inputs = Inputs.of(load(str(config), ConfigStore(str(root))))
    assert {p for p in INPUT_TREE if inputs.holds(str(root / p))} == truth
