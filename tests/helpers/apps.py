"""MCP Apps for the tests: small apps written with the official app side (``App`` of
``@modelcontextprotocol/ext-apps``), bundled by the locked esbuild of
``scripts/build_app_host.py`` into one HTML document each."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .servers import REPO

APPS = REPO / "tests" / "browser" / "apps"


def _build_script():
    spec = importlib.util.spec_from_file_location(
        "build_app_host", REPO / "scripts" / "build_app_host.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def app_html(name: str, out_dir: Path, body: str, **data: str) -> str:
    """``tests/browser/apps/<name>.js`` bundled (ES module) into an HTML document whose body is
    ``body`` then the script; ``data`` become ``data-*`` attributes of the body."""
    build = _build_script()
    work = build.WORK
    build.install(work)
    source = work / "test-apps" / f"{name}.js"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes((APPS / f"{name}.js").read_bytes())
    out = out_dir / f"{name}.bundle.js"
    build.esbuild([str(source.relative_to(work)), "--bundle", "--format=esm",
                   "--platform=browser", "--target=es2022", "--minify", "--log-level=warning",
                   f"--outfile={out}"], work)
    script = out.read_text(encoding="utf-8").replace("</script", "<\\/script")
    attributes = "".join(f' data-{key}="{value}"' for key, value in data.items())
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>probe</title></head>"
            f"<body{attributes}>{body}<script type=\"module\">{script}</script></body></html>")
