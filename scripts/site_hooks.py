"""MkDocs hooks of the documentation site (mkdocs.yml): the pages stay plain Markdown that reads
on the forge, and the site is made from them as they are.

- The home page is the README itself (``index.md`` in the site), not a copy that could drift.
- A page's relative links are written for the checkout (``docs/forms.md`` from the README,
  ``../nb_elicit/_ui/form.py`` from a page of docs/). On the site each link is pointed at the
  same file there: a page of docs/ at its page, the README at the home page, and a file of the
  checkout outside docs/ (source, tests, notebooks, the benchmarks' results) at its copy under
  ``source/``, which the site carries for the purpose. A link to a folder, which a static site
  cannot show, keeps its text and loses its link.

So ``mkdocs build --strict`` checks every link and anchor of the pages as the site shows them,
and no page needs a second, site-only spelling of its links.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

from mkdocs.structure.files import File, Files, InclusionLevel

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: Where the site keeps its copies of the checkout's files that pages link to.
SOURCE = "source"

_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"(!?\[[^\]]*\]\(\s*<?)([^)\s>]+)(>?(?:\s+\"[^\"]*\")?\s*\))")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def _relative_links(text: str):
    """The relative link targets of a Markdown text, outside fenced code blocks: for each line,
    its index and its link matches."""
    fenced = False
    for index, line in enumerate(text.splitlines(keepends=True)):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        matches = [m for m in _LINK.finditer(line)
                   if not _EXTERNAL.match(m.group(2)) and not m.group(2).startswith("#")]
        if matches:
            yield index, matches


def _target(page_path: Path, link: str) -> Path:
    """The file or folder of the checkout that a relative link of the page at ``page_path``
    names (its fragment aside)."""
    return (page_path.parent / unquote(link.partition("#")[0])).resolve()


def _site_uri(target: Path, docs_dir: Path) -> str | None:
    """Where the file ``target`` of the checkout is in the site (a path from the site's root,
    as MkDocs names its files), or None for a folder, a file that does not exist, or what is
    outside the checkout."""
    if target == README:
        return "index.md"
    if target.is_relative_to(docs_dir):
        return target.relative_to(docs_dir).as_posix()
    if target.is_file() and target.is_relative_to(ROOT):
        return f"{SOURCE}/{target.relative_to(ROOT).as_posix()}"
    return None


def on_files(files: Files, config) -> Files:
    """Add the home page (the README) and the copies of the checkout's files that pages link
    to, found by following the links of every page, the copied Markdown pages' too."""
    docs_dir = Path(config.docs_dir).resolve()
    files.append(File.generated(config, "index.md", abs_src_path=str(README)))
    pages = [Path(f.abs_src_path) for f in files.documentation_pages()]
    seen = set()
    while pages:
        page = pages.pop()
        text = page.read_text(encoding="utf-8")
        for _, matches in _relative_links(text):
            for match in matches:
                target = _target(page, match.group(2))
                uri = _site_uri(target, docs_dir)
                if uri is None or not uri.startswith(f"{SOURCE}/") or uri in seen:
                    continue
                seen.add(uri)
                files.append(File.generated(config, uri, abs_src_path=str(target),
                                            inclusion=InclusionLevel.NOT_IN_NAV))
                if target.suffix == ".md":
                    pages.append(target)
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    """Point each relative link of the page at its target's place in the site (see the
    module's docstring)."""
    docs_dir = Path(config.docs_dir).resolve()
    page_path = Path(page.file.abs_src_path)
    here = posixpath.dirname(page.file.src_uri)

    def site_link(match: re.Match) -> str:
        link = match.group(2)
        fragment = link[len(link.partition("#")[0]):]
        target = _target(page_path, link)
        uri = _site_uri(target, docs_dir)
        if uri is None and target.is_dir():
            text = match.group(1).lstrip("!")
            return text[1:text.rindex("]")]  # (a folder: the link's text alone)
        if uri is None:
            return match.group(0)  # (as it is, which MkDocs reports as a broken link)
        return match.group(1) + posixpath.relpath(uri, here or ".") + fragment + match.group(3)

    lines = markdown.splitlines(keepends=True)
    for index, _ in _relative_links(markdown):
        lines[index] = _LINK.sub(
            lambda m: m.group(0) if _EXTERNAL.match(m.group(2)) or m.group(2).startswith("#")
            else site_link(m), lines[index])
    return "".join(lines)
