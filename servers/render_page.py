"""The workbench page: a world's rendered components and the outcomes of its other wants as one offline HTML page (no external asset), with the script that sends a button's press.

Every text on the page comes from a world (its want arguments, a Why) and is escaped; the one script
and style carry a nonce that the response's Content-Security-Policy names, so nothing else runs.  A
component is an element with ``data-kind`` and ``data-want`` (its want's text, the name a press
gives); an outcome is an ``li`` of ``#outcomes`` with ``data-want`` and ``data-status``.  The script
posts ``{"files", "press", "fields"}`` as JSON to the page's own path (``servers/render_routes.py``)
and puts the ``html`` it answers in place of ``#content``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape

from rofl.adapters.render_kind import Shown

from rofl.questions.answer import doc, to_json

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}
header{background:#1d2430;color:#fff;padding:.6em 1.2em;font-size:13px}
header code{color:#cde}
main{max-width:46em;margin:1.5em auto;padding:0 1em}
.component{margin:.8em 0}
.card{background:#fff;border:1px solid #d5dae2;border-radius:6px;padding:.6em 1em}
.card h2{font-size:1.05em;margin:.1em 0 .4em}
dl{display:grid;grid-template-columns:max-content auto;gap:.1em .8em;margin:.3em 0;font-size:.92em}
dt{color:#5a6475}dd{margin:0}
label{display:block;font-weight:600}
input{display:block;margin-top:.25em;padding:.4em;font:inherit;width:100%;max-width:24em;box-sizing:border-box}
button{font:inherit;padding:.4em 1.1em;border-radius:5px;border:1px solid #2b5cc8;background:#2f6fed;color:#fff}
button:disabled{opacity:.6}
.pressed button{outline:3px solid #f0b429}
#status{min-height:1.3em;color:#5a6475;font-size:.92em}
#status[data-state=error]{color:#b42318}
#outcomes{font-size:.9em;padding-left:1.2em}
li[data-status=failed],li[data-status=held]{color:#b42318}
.empty{color:#5a6475}
"""

SCRIPT = """
(function () {
  var main = document.getElementById('workbench');
  var files = JSON.parse(main.getAttribute('data-files'));
  var status = document.getElementById('status');
  main.addEventListener('click', function (ev) {
    var button = ev.target.closest('button[data-want]');
    if (!button) { return; }
    var fields = {};
    main.querySelectorAll('input[data-want]').forEach(function (input) {
      fields[input.getAttribute('data-want')] = input.value;
    });
    button.disabled = true;
    status.setAttribute('data-state', 'pressing');
    status.textContent = 'pressing ' + button.textContent + ' ...';
    fetch(location.pathname, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      credentials: 'same-origin',
      body: JSON.stringify({files: files, press: button.getAttribute('data-want'), fields: fields})
    }).then(function (response) {
      return response.json().then(function (body) { return {ok: response.ok, body: body}; });
    }).then(function (got) {
      if (got.ok) {
        document.getElementById('content').innerHTML = got.body.html;
        status.setAttribute('data-state', 'done');
        status.textContent = 'pressed ' + got.body.pressed;
      } else {
        button.disabled = false;
        status.setAttribute('data-state', 'error');
        status.textContent = got.body.error;
      }
    }, function (err) {
      button.disabled = false;
      status.setAttribute('data-state', 'error');
      status.textContent = String(err);
    });
  });
})();
"""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one want of a capability of another kind ended (what a press made the world ask, say)."""

    want: str = doc("The want's text.")
    capability: str = doc("Its capability.")
    klass: str = doc("The capability's class (? when no book declares it).", json="class")
    status: str = doc("answered, failed or want_held.")
    why: str | None = doc("Why it ended so, or null.")

    def as_json(self) -> dict:
        return to_json(self)


def _attr(text: str) -> str:
    return escape(text, quote=True)


def component_html(c: Shown) -> str:
    """One component as HTML (every text escaped)."""
    head = (
        f'class="component {c.kind}{" pressed" if c.pressed else ""}" data-kind="{c.kind}" data-want="{_attr(c.want)}"'
    )
    lines = "".join(f"<dt>{escape(n)}</dt><dd>{escape(v)}</dd>" for n, v in c.lines)
    details = f"<dl>{lines}</dl>" if lines else ""
    text = escape(c.text)
    if c.kind == "heading":
        return f"<div {head}><h1>{text}</h1>{details}</div>"
    if c.kind == "text":
        return f"<div {head}><p>{text}</p>{details}</div>"
    if c.kind == "card":
        return f"<div {head}><h2>{text}</h2>{details}</div>"
    if c.kind == "button":
        return f'<div {head}><button type="button" data-want="{_attr(c.want)}">{text}</button>{details}</div>'
    value = "" if c.value is None else f' value="{_attr(c.value)}"'
    return (
        f'<div {head}><label>{text}<input type="text" name="{_attr(c.want)}" data-want="{_attr(c.want)}"{value}>'
        f"</label>{details}</div>"
    )


def fragment(components: tuple[Shown, ...], outcomes: tuple[Outcome, ...]) -> str:
    """What ``#content`` holds: the components in page order, then the outcomes of the other wants."""
    parts = [component_html(c) for c in components] or ['<p class="empty">The world shows nothing.</p>']
    items = "".join(
        f'<li data-want="{_attr(o.want)}" data-status="{_attr(o.status)}"><code>{escape(o.want)}</code> '
        f"({escape(o.klass)}): {escape(o.status.replace('want_', ''))}{': ' + escape(o.why) if o.why else ''}</li>"
        for o in outcomes
    )
    asked = f'<h3>What the world asked</h3><ul id="outcomes">{items}</ul>' if items else '<ul id="outcomes"></ul>'
    return "".join(parts) + asked


def page(files: tuple[str, ...], body: str, nonce: str, grants: str, title: str = "rofl workbench") -> str:
    """The whole page around ``body`` (a ``fragment``, or an error's paragraph)."""
    names = ", ".join(files)
    return (
        "<!doctype html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<style nonce="{nonce}">{STYLE}</style></head><body>'
        f"<header>rofl workbench: <code>{escape(names)}</code> &middot; this server grants {escape(grants)}</header>"
        f'<main id="workbench" data-files="{_attr(json.dumps(list(files)))}">'
        f'<div id="content">{body}</div><p id="status" role="status"></p></main>'
        f'<script nonce="{nonce}">{SCRIPT}</script></body></html>\n'
    )


def error_body(message: str) -> str:
    """An error in place of the components: the one line that says what to fix."""
    return f'<p id="error" class="error" role="alert">{escape(message)}</p>'


def security_policy(nonce: str) -> str:
    """The Content-Security-Policy of a page: its own script and style, requests to itself, no frames."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "img-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    )
