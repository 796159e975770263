"""The pages' templates and their CSS and JavaScript: one Jinja environment for the static report
(report.py) and the live page of issue 22, so both lay out the same views the same way.

The templates (evaluation/templates/*.j2, one partial per view) and the files they inline
(evaluation/static/) are package data, read through importlib.resources: an installed ludica finds
them as a checkout does.

Autoescaping is on: whatever a template prints is escaped unless it is `Markup`, and only our own
text is made so (the static files, the replay's JSON, matplotlib's SVG). Values are escaped with
Python's `html.escape` rather than markupsafe's spelling (`&quot;`, `&#x27;` where markupsafe
writes `&#34;`, `&#39;`): the same safety, and the bytes a report held before its templates.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
from importlib import resources

import jinja2
from markupsafe import Markup

__all__ = ["Markup", "content_security_policy", "environment", "render", "script_json", "static"]


def _read(folder: str, name: str) -> str:
    return resources.files(__package__).joinpath(folder, *name.split("/")).read_text(encoding="utf-8")


@functools.cache
def static(name: str) -> Markup:
    """A file of evaluation/static/ (CSS, JavaScript) as it is inlined into a page: our own text."""
    return Markup(_read("static", name))


def _template(name: str) -> str | None:
    try:
        return _read("templates", name)
    except FileNotFoundError:
        return None  # Jinja says TemplateNotFound, naming it


def _escaped(value):
    """Every printed value as text: `html.escape`d unless it is already markup (see above)."""
    return value if isinstance(value, Markup) else Markup(html.escape(str(value)))


# `<`, `>` and `&` inside a script element's JSON as \u escapes: no string in it ("</script>", "<!--")
# can end the element or change how it is read; U+2028/2029 too (line ends to older JavaScript).
_SCRIPT_SAFE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def script_json(data) -> str:
    """`data` as JSON that may stand inside a <script type="application/json"> element as it is."""
    return json.dumps(data, separators=(",", ":")).translate(_SCRIPT_SAFE)


def content_security_policy(scripts: list[str]) -> str:
    """A page's policy: nothing is loaded from anywhere, and the only scripts that run are the
    static files `scripts`, inlined (by their SHA-256), so no markup an agent's text might still
    slip into the page can run; the plots need inline styles and their images as data: URIs."""
    digests = " ".join(f"'sha256-{_sha256(static(name))}'" for name in scripts)
    return (f"default-src 'none'; script-src {digests}; style-src 'unsafe-inline'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@functools.cache
def environment() -> jinja2.Environment:
    """The templates' environment: autoescaping on, a missing variable an error (not a blank)."""
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_template), autoescape=True, finalize=_escaped,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(static=static, content_security_policy=content_security_policy)
    env.filters["script_json"] = lambda data: Markup(script_json(data))
    return env


def render(template: str, **context) -> str:
    """The page (or one view's partial) `template` of evaluation/templates/ with `context`."""
    return environment().get_template(template).render(**context)
