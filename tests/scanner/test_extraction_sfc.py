"""Vue, Svelte and Astro components: their script blocks are found, parsed with the right grammar, lines kept."""

from __future__ import annotations

from rofl.scanner.sfc import ScriptBlock, blank_outside, script_blocks, script_texts

from tests.scanner.conftest import read_facts, rel, scan_json

# modelled on TanStack query's examples/vue: a plain <script> beside <script setup lang="ts">
VUE_APP = """\
<script lang="ts">
import { defineComponent } from 'vue'
import Posts from './Posts.vue'
export default defineComponent({ name: 'App' })
</script>

<script setup lang="ts">
import { ref } from 'vue'
import type { Post } from './types'
const postId = ref<number>(-1)
function select(id: number) { postId.value = id }
</script>

<template>
  <!-- <script>import "./commented-out"</script> -->
  <Posts :set-post-id="select" class="posts" />
</template>

<style scoped>
@import './app.css';
</style>
"""

# modelled on TanStack query's examples/svelte: module script, instance script, markup
SVELTE_PAGE = """\
<script context="module" lang="ts">
  export const prerender = true
</script>

<script lang="ts">
  import { createQuery } from '@tanstack/svelte-query'
  import Post from './Post.svelte'
  const query = createQuery({ queryKey: ['posts'], queryFn: () => fetch('/api') })
  $: count = $query.data?.length
</script>

{#if $query.isSuccess}
  <Post posts={$query.data} />
{/if}
<script type="application/ld+json">{"@context": "https://schema.org"}</script>
"""

# modelled on TanStack query's examples/solid/astro: frontmatter, template, client script
ASTRO_LAYOUT = """\
---
import { SolidApp } from "../components/SolidApp";
import type { Props } from "../types";
const { id } = Astro.props as Props;
---

<html lang="en">
  <body>
    <SolidApp client:only="solid-js" id={id} />
    <script>
      import { register } from "../client/register";
      register(document.body);
    </script>
    <script src="/analytics.js"></script>
  </body>
</html>
"""


def test_vue_blocks_keep_offsets_and_lines():
    data = VUE_APP.encode()
    blocks = script_blocks(data, "vue")
    assert [b.grammar for b in blocks] == ["typescript", "typescript"]
    first = data[blocks[0].start : blocks[0].end].decode()
    assert first.startswith("\nimport { defineComponent }") and first.endswith("})\n")
    ((grammar, text),) = script_texts(data, "vue")
    assert grammar == "typescript"
    assert len(text) == len(data) and text.count(b"\n") == data.count(b"\n")
    assert b"<template>" not in text and b"commented-out" not in text and b"@import" not in text
    lines = text.decode().split("\n")
    assert lines[7] == "import { ref } from 'vue'" and lines[0].strip() == "" and lines[4].strip() == ""


def test_script_attributes_choose_the_grammar_or_skip_the_block():
    page = (
        b'<script lang="tsx">a</script><script lang=jsx>b</script><script>c</script>'
        b'<script lang="typescript">d</script><script type="text/template">e</script>'
        b'<script type="module" src="./x.js"></script><script type="module">f</script>'
    )
    found = [(page[b.start : b.end], b.grammar) for b in script_blocks(page, "svelte")]
    assert found == [(b"a", "tsx"), (b"b", "tsx"), (b"c", "javascript"), (b"d", "typescript"), (b"f", "javascript")]
    assert [b.grammar for b in script_blocks(b"<script>x</script>", "astro")] == ["typescript"]


def test_astro_frontmatter_and_scripts():
    data = ASTRO_LAYOUT.encode()
    blocks = script_blocks(data, "astro")
    assert len(blocks) == 2 and all(b.grammar == "typescript" for b in blocks)
    assert data[blocks[0].start : blocks[0].end].startswith(b"import { SolidApp }")
    assert script_blocks(b"<div>---</div>\n---\nnot frontmatter\n---\n", "astro") == []


def test_blank_outside_keeps_line_breaks_and_multibyte_lengths():
    data = "<p>é\r\n</p><script>x</script>\n".encode()
    start = data.index(b">x<") + 1
    blanked = blank_outside(data, [ScriptBlock(start, start + 1, "javascript")])
    assert len(blanked) == len(data)
    assert blanked.replace(b" ", b"") == b"\r\nx\n"


def test_components_are_scanned_and_imports_resolve(repo, out):
    src = repo(
        {
            "src/App.vue": VUE_APP,
            "src/Posts.vue": "<template><ul /></template>\n",
            "src/types.ts": "export interface Post { id: number }\n",
            "src/main.ts": "import App from './App.vue';\nexport default App;\n",
            "src/routes/+page.svelte": SVELTE_PAGE,
            "src/routes/Post.svelte": "<script>export let posts = [];</script>\n",
            "src/layouts/Main.astro": ASTRO_LAYOUT,
            "src/components/SolidApp.tsx": "export const SolidApp = () => <div />;\n",
            "src/client/register.ts": "export function register(el: Element) {}\n",
        }
    )
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["files"] == 9 and summary["errors"] == 0, rel(facts, "src_parse_error")

    def imports(path):
        return {(s, k[0]) for (p, s, k) in rel(facts, "src_import_kind") if p == path}

    def lines(path):
        return {(s, n) for (p, s, n) in rel(facts, "src_import_line") if p == path}

    assert imports("src/App.vue") == {("vue", "static"), ("./Posts.vue", "static"), ("./types", "type")}
    assert lines("src/App.vue") == {("vue", 2), ("./Posts.vue", 3), ("vue", 8), ("./types", 9)}
    assert ("src/App.vue", "select", 11) in rel(facts, "src_func")
    assert ("src/App.vue", "default") in rel(facts, "src_export")
    assert ("src/main.ts", "./App.vue", "src/App.vue") in rel(facts, "src_resolves")
    assert ("src/App.vue", "./Posts.vue", "src/Posts.vue") in rel(facts, "src_resolves")

    assert imports("src/routes/+page.svelte") == {("@tanstack/svelte-query", "static"), ("./Post.svelte", "static")}
    assert lines("src/routes/+page.svelte") == {("@tanstack/svelte-query", 6), ("./Post.svelte", 7)}
    assert ("src/routes/+page.svelte", "prerender") in rel(facts, "src_export")
    assert ("src/routes/+page.svelte", "./Post.svelte", "src/routes/Post.svelte") in rel(facts, "src_resolves")

    assert lines("src/layouts/Main.astro") == {
        ("../components/SolidApp", 2),
        ("../types", 3),
        ("../client/register", 11),
    }
    assert ("src/layouts/Main.astro", "../client/register", "src/client/register.ts") in rel(facts, "src_resolves")
    assert ("src/layouts/Main.astro", "<module>", "register") in rel(facts, "src_call")


def test_blocks_of_different_languages_and_errors_on_original_lines(repo, out):
    src = repo(
        {
            "Mixed.vue": (
                "<template><div /></template>\n"
                "<script>\n"
                "import legacy from './legacy.js'\n"
                "export default { mixins: [legacy] }\n"
                "</script>\n"
                '<script setup lang="ts">\n'
                "import { ref } from 'vue'\n"
                "const n = ref<number>(\n"
                "</script>\n"
            ),
            "legacy.js": "export default {};\n",
        }
    )
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert {(s, n) for (_, s, n) in rel(facts, "src_import_line")} == {("./legacy.js", 3), ("vue", 7)}
    assert ("Mixed.vue", "./legacy.js", "legacy.js") in rel(facts, "src_resolves")
    assert summary["errors"] == 1
    errors = {m for (_, m) in rel(facts, "src_parse_error")}
    assert errors and all(m.startswith("line 8: ") and m.endswith("(typescript grammar)") for m in errors), errors
