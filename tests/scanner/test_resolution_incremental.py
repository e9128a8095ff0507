"""Incremental scans re-resolve exactly the files whose resolution read what changed: assets, exports,
imports, customConditions, outDir/rootDir, pnpm-workspace.yaml, package scopes, symlinks."""

from __future__ import annotations

import json
import os

from tests.scanner.conftest import scan_json
from tests.scanner.test_resolve import answers, imports


def rescan(src, out) -> tuple[int, int]:
    summary = scan_json(src, out)
    return summary["parsed"], summary["resolved"]


def test_deleting_and_adding_an_asset_re_resolves_its_importer_only(repo, out):
    src = repo(
        {
            "Button.tsx": imports("./Button.scss"),
            "Other.tsx": imports("./Other.css"),
            "plain.ts": imports("./Button"),
            "Button.scss": ".b {}",
            "Other.css": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "Button.tsx") == {"./Button.scss": ("file", "Button.scss")}
    (src / "Button.scss").unlink()
    assert rescan(src, out) == (0, 1)
    assert answers(out, "Button.tsx") == {"./Button.scss": ("unresolved",)}
    assert answers(out, "Other.tsx") == {"./Other.css": ("file", "Other.css")}
    (src / "Button.scss").write_text(".c {}")
    assert rescan(src, out) == (0, 1)
    assert answers(out, "Button.tsx") == {"./Button.scss": ("file", "Button.scss")}
    assert rescan(src, out) == (0, 0)


def test_no_change_rescan_with_assets_symlinks_and_packages_reads_no_manifest(repo, out, monkeypatch):
    src = repo(
        {
            "package.json": json.dumps({"name": "me", "imports": {"#x": "./x.ts"}}),
            "x.ts": "",
            "a.ts": imports("./a.css", "#x", "me", "./folder.css", "./dir"),
            "a.css": "",
            "dir/nothing.txt": "",
            "real.ts": "",
        }
    )
    os.symlink("real.ts", src / "link.ts")
    os.makedirs(src / "folder.css")  # a folder with an asset's name: not a file
    scan_json(src, out)
    from rofl.scanner import manifest

    def no_manifest(out_dir: str) -> None:
        raise AssertionError("a no-change rescan must not read manifest.json")

    monkeypatch.setattr(manifest, "load", no_manifest)
    assert rescan(src, out) == (0, 0)


def test_changing_exports_re_resolves_the_importers_of_that_package(repo, out):
    src = repo(
        {
            "package.json": json.dumps({"workspaces": ["packages/*"]}),
            "packages/lib/package.json": json.dumps({"name": "lib", "exports": {".": "./src/a.ts"}}),
            "packages/lib/src/a.ts": "",
            "packages/lib/src/b.ts": "",
            "packages/other/package.json": json.dumps({"name": "other"}),
            "packages/other/index.ts": "",
            "app/uses-lib.ts": imports("lib"),
            "app/uses-other.ts": imports("other"),
            "app/relative.ts": imports("./uses-lib"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app/uses-lib.ts") == {"lib": ("file", "packages/lib/src/a.ts")}
    (src / "packages/lib/package.json").write_text(json.dumps({"name": "lib", "exports": {".": "./src/b.ts"}}))
    assert rescan(src, out) == (0, 1)
    assert answers(out, "app/uses-lib.ts") == {"lib": ("file", "packages/lib/src/b.ts")}
    (src / "packages/lib/package.json").write_text(json.dumps({"name": "lib", "exports": {"./x": "./src/b.ts"}}))
    assert rescan(src, out) == (0, 1)
    assert answers(out, "app/uses-lib.ts") == {"lib": ("workspace", "packages/lib")}


def test_changing_custom_conditions_re_resolves_the_files_it_governs(repo, out):
    src = repo(
        {
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
            "tsconfig.base.json": '{"compilerOptions": {"customConditions": ["source"]}}',
            "tsconfig.json": '{"extends": "./tsconfig.base.json"}',
            "packages/core/package.json": json.dumps(
                {"name": "core", "exports": {".": {"source": "./source/index.ts", "default": "./dist/index.js"}}}
            ),
            "packages/core/source/index.ts": "",  # not src/: no same-stem source for dist/index.js
            "app/main.ts": imports("core"),
            "app/local.ts": imports("./main"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app/main.ts") == {"core": ("file", "packages/core/source/index.ts")}
    (src / "tsconfig.base.json").write_text('{"compilerOptions": {"customConditions": []}}')
    assert rescan(src, out) == (0, 1)  # app/main.ts only: app/local.ts read no tsconfig
    assert answers(out, "app/main.ts") == {"core": ("workspace", "packages/core")}
    # the build mapping through the package's own tsconfig
    (src / "packages/core/tsconfig.build.json").write_text(
        '{"compilerOptions": {"outDir": "dist", "rootDir": "source"}}'
    )
    assert rescan(src, out) == (0, 1)
    assert answers(out, "app/main.ts") == {"core": ("file", "packages/core/source/index.ts")}
    (src / "packages/core/tsconfig.build.json").write_text(
        '{"compilerOptions": {"outDir": "lib", "rootDir": "source"}}'
    )
    assert rescan(src, out) == (0, 1)
    assert answers(out, "app/main.ts") == {"core": ("workspace", "packages/core")}


def test_pnpm_workspace_change_moves_a_shared_name(repo, out):
    src = repo(
        {
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
            "fixtures/shared/package.json": json.dumps({"name": "shared", "main": "index.ts"}),
            "fixtures/shared/index.ts": "",
            "packages/shared/package.json": json.dumps({"name": "shared", "main": "index.ts"}),
            "packages/shared/index.ts": "",
            "app.ts": imports("shared"),
            "other.ts": imports("react"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app.ts") == {"shared": ("file", "packages/shared/index.ts")}
    (src / "pnpm-workspace.yaml").write_text("packages:\n  - fixtures/*\n")
    assert rescan(src, out) == (0, 1)
    assert answers(out, "app.ts") == {"shared": ("file", "fixtures/shared/index.ts")}


def test_imports_field_and_a_new_package_scope_re_resolve_hash_imports(repo, out):
    src = repo(
        {
            "package.json": json.dumps({"name": "root", "imports": {"#util": "./lib/util.ts"}}),
            "lib/util.ts": "",
            "lib/other.ts": "",
            "sub/deep/a.ts": imports("#util"),
            "sub/deep/b.ts": imports("./a"),
        }
    )
    scan_json(src, out)
    assert answers(out, "sub/deep/a.ts") == {"#util": ("file", "lib/util.ts")}
    (src / "package.json").write_text(json.dumps({"name": "root", "imports": {"#util": "./lib/other.ts"}}))
    assert rescan(src, out) == (0, 1)
    assert answers(out, "sub/deep/a.ts") == {"#util": ("file", "lib/other.ts")}
    (src / "sub/package.json").write_text(json.dumps({"name": "sub"}))  # a nearer scope without imports
    assert rescan(src, out) == (0, 1)
    assert answers(out, "sub/deep/a.ts") == {"#util": ("unresolved",)}


def test_removing_a_symlink_re_resolves_its_importers(repo, out):
    src = repo({"real.ts": "", "main.ts": imports("./link.js", "./real")})
    os.symlink("real.ts", src / "link.js")
    scan_json(src, out)
    assert answers(out, "main.ts") == {"./link.js": ("file", "real.ts"), "./real": ("file", "real.ts")}
    (src / "link.js").unlink()
    assert rescan(src, out) == (0, 1)
    assert answers(out, "main.ts") == {"./link.js": ("unresolved",), "./real": ("file", "real.ts")}


def test_a_new_resolver_version_re_resolves_every_file_without_parsing(repo, out):
    from tests.scanner.conftest import load_manifest

    src = repo({"a.ts": imports("./b"), "b.ts": imports("./c.css"), "c.css": "", "d.ts": ""})
    scan_json(src, out)
    manifest = load_manifest(out)
    manifest["resolver_version"] = "rofl-resolve-older"
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert rescan(src, out) == (0, 3)  # every file re-resolved, none parsed again
    assert answers(out, "b.ts") == {"./c.css": ("file", "c.css")}
    assert rescan(src, out) == (0, 0)


def test_installing_the_package_a_tsconfig_extends_re_resolves_the_files_it_governs(repo, out):
    src = repo(
        {
            "package.json": json.dumps({"workspaces": ["packages/*"]}),
            "packages/ui/package.json": json.dumps(
                {"name": "ui", "exports": {".": {"source": "./source/index.ts", "default": "./dist/index.js"}}}
            ),
            "packages/ui/source/index.ts": "",  # not src/: no same-stem source for dist/index.js
            "app/tsconfig.json": '{"extends": "@acme/tsconfig/base.json"}',
            "app/main.ts": imports("ui"),
            "other.ts": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "app/main.ts") == {"ui": ("workspace", "packages/ui")}
    (src / "node_modules/@acme/tsconfig").mkdir(parents=True)
    (src / "node_modules/@acme/tsconfig/base.json").write_text('{"compilerOptions": {"customConditions": ["source"]}}')
    assert rescan(src, out) == (0, 1)
    assert answers(out, "app/main.ts") == {"ui": ("file", "packages/ui/source/index.ts")}


SOLUTION = {  # modelled on Effect: a root solution file, each package its own config, a root config for the tests
    "package.json": json.dumps({"name": "acme", "private": True, "workspaces": ["packages/*"]}),
    "tsconfig.json": json.dumps(
        {
            "files": [],
            "references": [
                {"path": "./packages/a"},
                {"path": "./packages/c"},
                {"path": "./tsconfig.tests.json"},
            ],
        }
    ),
    "tsconfig.tests.json": json.dumps({"include": ["test"]}),
    "packages/a/package.json": json.dumps({"name": "@acme/a", "main": "src/index.ts"}),
    "packages/a/tsconfig.json": json.dumps({"include": ["src"]}),
    "packages/a/src/index.ts": imports("zod"),
    "packages/c/package.json": json.dumps({"name": "@acme/c", "main": "src/index.ts"}),
    "packages/c/tsconfig.json": json.dumps({"include": ["src"]}),
    "packages/c/src/index.ts": "export const c = 1;\n",  # no bare import: nothing of c reads c's config
    "test/a.test.ts": imports("@acme/a"),
}


def test_a_config_checked_and_rejected_is_a_scope_token_and_changing_it_re_resolves(repo, out):
    """test/a.test.ts's lookup checks packages/a and packages/c before tsconfig.tests.json takes it:
    those two are recorded as ``tsconfig-scope:`` tokens, the governing config plainly; changing c's
    config (read by no file plainly) re-resolves the test file, which c now governs."""
    from rofl.scanner.manifest import read

    src = repo(SOLUTION)
    scan_json(src, out)
    deps = set(read(out).files["test/a.test.ts"].resolution_deps)
    assert {"tsconfig.tests.json", "tsconfig.json"} <= deps
    assert {"tsconfig-scope:packages/a/tsconfig.json", "tsconfig-scope:packages/c/tsconfig.json"} <= deps
    assert not {"packages/a/tsconfig.json", "packages/c/tsconfig.json"} & deps
    assert "packages/a/tsconfig.json" in read(out).files["packages/a/src/index.ts"].resolution_deps
    assert rescan(src, out) == (0, 0)
    (src / "packages/c/tsconfig.json").write_text(json.dumps({"include": ["src", "../../test"]}))
    assert rescan(src, out) == (0, 1)
    deps = set(read(out).files["test/a.test.ts"].resolution_deps)
    assert "packages/c/tsconfig.json" in deps and "tsconfig.tests.json" not in deps
    assert answers(out, "test/a.test.ts") == {"@acme/a": ("file", "packages/a/src/index.ts")}
    (src / "packages/a/tsconfig.json").write_text(json.dumps({"include": ["src"], "compilerOptions": {}}))
    assert rescan(src, out) == (0, 2)  # a's own file (plainly) and the test file (c's lookup checked a first)
