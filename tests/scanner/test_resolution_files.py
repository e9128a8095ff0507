"""Resolution of paths: ?query and #hash suffixes, symlinks as one node, .js beside .d.ts, assets, components."""

from __future__ import annotations

import os

from tests.scanner.conftest import load_manifest, read_facts, rel, scan_json
from tests.scanner.test_resolve import answers, imports


def test_query_and_hash_suffixes_are_cut_before_resolving(repo, out):
    src = repo(
        {
            "main.ts": imports(
                "./w.js?worker", "./x.svg?raw", "./a#b", "./style.css?inline", "./w?worker&url", "./gone?raw"
            ),
            "w.ts": "",
            "a.ts": "",
            "x.svg": "<svg/>",
            "style.css": "a {}",
        }
    )
    scan_json(src, out)
    assert answers(out, "main.ts") == {
        "./w.js?worker": ("file", "w.ts"),
        "./x.svg?raw": ("file", "x.svg"),
        "./a#b": ("file", "a.ts"),
        "./style.css?inline": ("file", "style.css"),
        "./w?worker&url": ("file", "w.ts"),
        "./gone?raw": ("unresolved",),
    }


def test_a_hash_that_names_a_folder_is_read_literally(repo, out):
    src = repo(
        {"index.cjs": imports("./#/index.cjs", "./a#frag"), "#/index.cjs": "", "a.js": ""}
    )  # vite's sharp-dir fixture
    scan_json(src, out)
    assert answers(out, "index.cjs") == {"./#/index.cjs": ("file", "#/index.cjs"), "./a#frag": ("file", "a.js")}


def test_a_symlink_to_a_scanned_file_is_that_file(repo, out):
    src = repo(
        {
            "shared/eslint.config.js": "export default [];\n",
            "pkg/main.ts": imports("./root.eslint.config.js", "./root.eslint.config", "./linkdir/b"),
            "real/b.ts": "export const b = 1;\n",
        }
    )
    os.symlink("../shared/eslint.config.js", src / "pkg/root.eslint.config.js")  # TanStack/query does this
    os.symlink("../real", src / "pkg/linkdir")
    (src / "wasm").mkdir()
    (src / "wasm/add.wasm").write_bytes(b"\0asm")
    os.symlink("../wasm/add.wasm", src / "pkg/add.wasm")  # vite's ssr-wasm playground
    (src / "pkg/main.ts").write_text(
        imports("./root.eslint.config.js", "./root.eslint.config", "./linkdir/b", "./add.wasm")
    )
    # a package whose main is a symlink to a scanned file (vite's preserve-symlinks playground)
    (src / "module-a/src").mkdir(parents=True)
    (src / "module-a/src/index.js").write_text("export default 1;\n")
    (src / "module-a/package.json").write_text('{"name": "@vitejs/test-module-a", "main": "linked.js"}')
    (src / "package.json").write_text('{"workspaces": ["module-a"]}')  # a member: the workspace links it
    os.symlink("./src/index.js", src / "module-a/linked.js")
    (src / "uses-a.js").write_text(imports("@vitejs/test-module-a"))
    scan_json(src, out)
    files = set(load_manifest(out)["files"])
    assert files == {
        "shared/eslint.config.js",
        "pkg/main.ts",
        "real/b.ts",
        "module-a/src/index.js",
        "uses-a.js",
    }  # one file, one node
    assert answers(out, "pkg/main.ts") == {
        "./root.eslint.config.js": ("file", "shared/eslint.config.js"),
        "./root.eslint.config": ("file", "shared/eslint.config.js"),
        "./linkdir/b": ("file", "real/b.ts"),
        "./add.wasm": ("file", "wasm/add.wasm"),
    }
    assert answers(out, "uses-a.js") == {"@vitejs/test-module-a": ("file", "module-a/src/index.js")}
    assert {p for (p, _c) in rel(read_facts(out), "src_file")} == files


def test_js_beside_d_ts_gives_an_edge_to_each(repo, out):
    src = repo(
        {
            "a.ts": imports("./x.js", "./x", "./lib", "./m.mjs", "./only.js"),
            "x.js": "",
            "x.d.ts": "",
            "lib/index.js": "",
            "lib/index.d.ts": "",
            "m.mjs": "",
            "m.d.mts": "",
            "only.js": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "a.ts") == {
        "./x.js": ("file", ("x.d.ts", "x.js")),
        "./x": ("file", ("x.d.ts", "x.js")),
        "./lib": ("file", ("lib/index.d.ts", "lib/index.js")),
        "./m.mjs": ("file", ("m.d.mts", "m.mjs")),
        "./only.js": ("file", "only.js"),
    }


def test_a_js_specifier_beside_its_ts_source_gives_an_edge_to_each(repo, out):
    src = repo(
        {
            "a.js": imports("./err.js", "./err", "./err.ts", "./view.jsx", "./only.js"),
            "err.ts": "",
            "err.js": "",  # vite's fixtures: a .js file beside the .ts one
            "view.tsx": "",
            "view.jsx": "",
            "only.ts": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "a.js") == {
        "./err.js": ("file", ("err.js", "err.ts")),
        "./err": ("file", "err.ts"),  # TypeScript's answer: bundlers differ on extensionless order
        "./err.ts": ("file", "err.ts"),
        "./view.jsx": ("file", ("view.jsx", "view.tsx")),
        "./only.js": ("file", "only.ts"),
    }


def test_cjs_and_mjs_importers_use_only_their_own_condition(repo, out):
    package = '{"name": "dual", "exports": {"import": "./import.mjs", "require": "./require.cjs"}}'
    src = repo(
        {
            "package.json": '{"workspaces": ["dual"]}',
            "dual/package.json": package,
            "dual/import.mjs": "",
            "dual/require.cjs": "",
            "app/main.cjs": imports("dual"),
            "app/main.mjs": imports("dual"),
            "app/main.js": imports("dual"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app/main.cjs") == {"dual": ("file", "dual/require.cjs")}
    assert answers(out, "app/main.mjs") == {"dual": ("file", "dual/import.mjs")}
    assert answers(out, "app/main.js") == {"dual": ("file", "dual/import.mjs")}  # both apply: the first key wins


def test_assets_resolve_to_the_file_and_are_marked(repo, out):
    src = repo(
        {
            "src/Button.tsx": imports(
                "./Button.scss", "../assets/logo.svg", "./data.json", "../fonts/a.woff2", "./missing.css", "./README.md"
            ),
            "src/Button.scss": ".b {}",
            "src/data.json": "{}",
            "src/README.md": "# hi",
            "assets/logo.svg": "<svg/>",
            "fonts/a.woff2": b"\x00wOF2",
        }
    )
    scan_json(src, out)
    assert answers(out, "src/Button.tsx") == {
        "./Button.scss": ("file", "src/Button.scss"),
        "../assets/logo.svg": ("file", "assets/logo.svg"),
        "./data.json": ("file", "src/data.json"),
        "../fonts/a.woff2": ("file", "fonts/a.woff2"),
        "./missing.css": ("unresolved",),  # nothing exists there
        "./README.md": ("file", "src/README.md"),
    }
    assets = {a for (a,) in rel(read_facts(out), "src_asset")}
    assert assets == {"src/Button.scss", "assets/logo.svg", "src/data.json", "fonts/a.woff2", "src/README.md"}


def test_asset_through_tsconfig_paths(repo, out):
    src = repo(
        {
            "tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}',
            "src/styles/app.css": "a {}",
            "src/main.ts": imports("@/styles/app.css"),
        }
    )
    scan_json(src, out)
    assert answers(out, "src/main.ts") == {"@/styles/app.css": ("file", "src/styles/app.css")}


def test_component_files_resolve(repo, out):
    src = repo(
        {
            "main.ts": imports("./App.vue", "./Card.svelte", "./Layout.astro", "./App"),
            "App.vue": "<template><div/></template>\n<script setup lang=\"ts\">\nimport './util'\n</script>\n",
            "Card.svelte": "<script>\nlet x = 1;\n</script>\n",
            "Layout.astro": "---\nconst a = 1;\n---\n<html></html>\n",
            "util.ts": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "main.ts") == {
        "./App.vue": ("file", "App.vue"),
        "./Card.svelte": ("file", "Card.svelte"),
        "./Layout.astro": ("file", "Layout.astro"),
        "./App": ("unresolved",),  # bundlers need the .vue extension
    }
    assert not {a for (a,) in rel(read_facts(out), "src_asset")}


def test_fact_file_names_never_start_with_a_dash(repo, out):
    src = repo({"-rf.ts": "export {};\n", "--help.js": "", "-/x.ts": "", "._-x.ts": ""})
    scan_json(src, out)
    names = os.listdir(out / "code")
    assert len(names) == 4
    assert not [n for n in names if n.startswith("-")]
