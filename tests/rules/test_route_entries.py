"""Route files of meta-frameworks are entry points (issue 21): a SvelteKit, Next.js, Nuxt, Astro or
Remix/React Router app's file-system routes are loaded by the framework, never imported, so they are
no orphans and their exports are used.  Only inside an app root (the folder of the framework's
marker file): a Vite app's src/pages/ is not Astro's."""

from __future__ import annotations

import json

import pytest

from tests.cli.impact_fixtures import run, scan_tree

PAGE = "export default function Page() { return null; }\nexport const helper = 1;\n"
# (framework, files of an app, the route files among them)
CONVENTIONS = [
    (
        "sveltekit",
        {"svelte.config.js": "export default {};\n", "src/lib/x.ts": "export const x = 1;\n"},
        [
            "src/routes/+page.svelte",
            "src/routes/+layout.ts",
            "src/routes/blog/[slug]/+page.server.ts",
            "src/routes/api/+server.ts",
            "src/routes/+error.svelte",
            "src/routes/(app)/+layout@.svelte",
            "src/hooks.server.ts",
            "src/params/id.ts",
        ],
    ),
    (
        "next-app-router",
        {"next.config.mjs": "export default {};\n", "app/components/button.tsx": PAGE},
        ["app/page.tsx", "app/layout.tsx", "app/blog/[slug]/page.tsx", "app/api/users/route.ts", "app/not-found.tsx"],
    ),
    (
        "next-src-app-router",
        {"next-env.d.ts": "/// <reference types='next' />\n", "src/lib/db.ts": PAGE},
        ["src/app/page.tsx", "src/app/(shop)/cart/layout.tsx", "src/middleware.ts"],
    ),
    (
        "next-pages-router",
        {"next.config.js": "module.exports = {};\n", "lib/util.ts": PAGE},
        ["pages/index.tsx", "pages/_app.tsx", "pages/blog/[id].tsx", "pages/api/hello.ts", "middleware.ts"],
    ),
    (
        "nuxt",
        {"nuxt.config.ts": "export default {};\n", "utils/format.ts": PAGE},
        [
            "pages/index.vue",
            "pages/users/[id].vue",
            "layouts/default.vue",
            "server/api/hello.ts",
            "middleware/auth.ts",
            "plugins/i18n.ts",
            "app.vue",
        ],
    ),
    (
        "nuxt-4-app-folder",
        {"nuxt.config.ts": "export default {};\n"},
        ["app/pages/index.vue", "app/layouts/default.vue", "app/app.vue", "server/api/ping.ts"],
    ),
    (
        "astro",
        {"astro.config.mjs": "export default {};\n", "src/components/x.ts": PAGE},
        ["src/pages/index.astro", "src/pages/api/feed.ts", "src/pages/blog/[slug].ts", "src/middleware.ts"],
    ),
    (
        "remix",
        {"app/utils.ts": PAGE},
        ["app/root.tsx", "app/routes/_index.tsx", "app/routes/posts.$id.tsx", "app/entry.server.tsx"],
    ),
    (
        "react-router",
        {"react-router.config.ts": "export default {};\n"},
        ["app/routes.ts", "app/routes/home.tsx", "app/routes/about/route.tsx"],
    ),
]


def answers(facts, query: str, *extra) -> set[str]:
    code, out, err = run("ask", query, "--facts", facts, "--json", *extra)
    assert code in (0, 1), err
    return {a["F"] for a in json.loads(out)["answers"]}


def content(path: str) -> str:
    return "<script>let x = 1;</script>\n" if path.endswith((".svelte", ".vue", ".astro")) else PAGE


def tree(framework: str, root: str = "") -> tuple[dict[str, str], set[str], set[str]]:
    """The files of one app under ``root``, its route files, and the files that should stay orphans."""
    app, routes = next((a, r) for f, a, r in CONVENTIONS if f == framework)
    files = {root + p: c for p, c in app.items()}
    files.update({root + p: content(p) for p in routes})
    rest = {root + p for p in app if not p.endswith(".d.ts") and ".config." not in p}
    return files, {root + r for r in routes}, rest


def assert_routes_are_entries(facts, routes: set[str], rest: set[str]) -> None:
    orphans = answers(facts, "orphan(F)")
    assert not orphans & routes
    assert rest <= orphans  # what is not a route stays an orphan
    assert not answers(facts, "unused_export(F, N)") & routes  # a route's exports are the framework's to use


@pytest.mark.parametrize("framework", [c[0] for c in CONVENTIONS])
def test_route_files_are_entries_and_the_rest_still_orphans(tmp_path, framework):
    files, routes, rest = tree(framework)
    _, facts = scan_tree(tmp_path, files)
    assert_routes_are_entries(facts, routes, rest)


def test_route_files_of_every_app_of_a_monorepo(tmp_path):
    files: dict[str, str] = {}
    routes: set[str] = set()
    rest: set[str] = set()
    for framework, _, _ in CONVENTIONS:
        f, r, o = tree(framework, f"apps/{framework}/")
        files.update(f)
        routes |= r
        rest |= o
    _, facts = scan_tree(tmp_path, files)
    assert_routes_are_entries(facts, routes, rest)


def test_route_conventions_hold_only_inside_an_app_root(tmp_path):
    files = {
        # a Vite single-page app: src/pages/ is its own folder, not Astro's or Next's
        "apps/spa/vite.config.ts": "export default {};\n",
        "apps/spa/src/pages/Home.tsx": PAGE,
        "apps/spa/pages/About.tsx": PAGE,
        "apps/spa/app/routes/x.tsx": PAGE,
        # a Next.js app beside it, with an app/ folder that is not its app router
        "apps/web/next.config.js": "module.exports = {};\n",
        "apps/web/app/page.tsx": PAGE,
        "apps/web/components/app/page.tsx": PAGE,
        "apps/web/lib/pages/list.ts": PAGE,
    }
    _, facts = scan_tree(tmp_path, files)
    assert answers(facts, "orphan(F)") == {
        "apps/spa/src/pages/Home.tsx",
        "apps/spa/pages/About.tsx",
        "apps/spa/app/routes/x.tsx",
        "apps/web/components/app/page.tsx",
        "apps/web/lib/pages/list.ts",
    }


def test_entry_conventions_off_drops_the_route_conventions(tmp_path):
    _, facts = scan_tree(tmp_path, {"next.config.js": "module.exports = {};\n", "app/page.tsx": PAGE})
    rules = tmp_path / "off.rofl"
    rules.write_text("entry_conventions(off).\n")
    assert answers(facts, "orphan(F)", "--rules", rules) == {"app/page.tsx", "next.config.js"}
    assert answers(facts, "route_entry(F, W)") == {"app/page.tsx"}
