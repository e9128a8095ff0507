"""scanner.workspaces: pnpm-workspace.yaml's packages list and workspace globs, on the shapes zod, query and vite use."""

from __future__ import annotations

from rofl.scanner.workspaces import glob_regex, pnpm_globs

QUERY_YAML = """cleanupUnusedCatalogs: true
trustPolicyExclude:
  - 'vite@6.4.1' # Socket score 94/100
packages:
  - 'packages/*'
  - 'examples/react/*'
  - '!examples/vue/2*'

overrides:
  'chokidar': '5.0.0'
"""


def test_pnpm_block_list_stops_at_the_next_key_and_keeps_other_lists_out():
    assert pnpm_globs(QUERY_YAML) == ["packages/*", "examples/react/*", "!examples/vue/2*"]


def test_pnpm_quotes_comments_and_flow_lists():
    assert pnpm_globs('packages:\n  - "a/*"   # note\n  - b\n  - docs\nhoist: false\n') == ["a/*", "b", "docs"]
    assert pnpm_globs("packages: ['a/*', \"b/**\"]\n") == ["a/*", "b/**"]
    assert pnpm_globs("hoist: false\n") == []


def test_globs_star_stays_in_one_folder_and_double_star_spans_any_depth():
    assert glob_regex("packages/*").match("packages/vite")
    assert not glob_regex("packages/*").match("packages/vite/src")
    assert glob_regex("playground/**").match("playground/a/b")
    assert glob_regex("packages/**/__tests__/**").match("packages/vite/src/node/__tests__/fixtures/x")
    assert glob_regex("./docs/").match("docs")
    assert not glob_regex("docs").match("packages/docs")
