"""The library nb_elicit's form build is compared with: ipywidgets-jsonschema, which turns a JSON
Schema into ipywidgets, at one pinned version. It is installed on first use into a directory
of the benchmark's own (never into the environment nb_elicit runs in, and never as one of its
dependencies), and that directory is put on ``sys.path`` only while the comparison runs.
Also the verdicts the comparison gives (pure functions of the numbers)."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import tempfile
from importlib.metadata import PackageNotFoundError, distributions, version
from pathlib import Path

from .common import PY, REPO, BenchError, Target

PEER = "ipywidgets-jsonschema"
PEER_VERSION = "1.2.1"
#: The module it is imported as.
PEER_MODULE = "ipywidgets_jsonschema"
#: Where it is installed (``pip install --no-deps --target``), one directory per version.
PEER_DIR = REPO / ".cache" / "bench-peers" / f"{PEER}-{PEER_VERSION}"


def installed_version(target: Path) -> str | None:
    """The version of the peer installed in ``target``, or None."""
    for dist in distributions(path=[str(target)]):
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name == PEER and (target / PEER_MODULE / "__init__.py").exists():
            return dist.version
    return None


def requirements(target: Path | str) -> list[tuple[str, str | None, bool]]:
    """The peer's requirements (those that apply here), each with the version this Python has
    (None: not installed) and whether that version satisfies it. It is installed without its
    dependencies: they must already be here."""
    from packaging.requirements import Requirement

    dist = next(d for d in distributions(path=[str(target)])
                if (d.metadata["Name"] or "").lower().replace("_", "-") == PEER)
    found = []
    for line in dist.requires or []:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            have = version(req.name)
        except PackageNotFoundError:
            found.append((str(req), None, False))
            continue
        found.append((str(req), have, req.specifier.contains(have, prereleases=True)))
    return found


def missing_requirements(target: Path | str) -> list[str]:
    return [f"{req} (have {have or 'none'})" for req, have, ok in requirements(target)
            if not ok]


def requirements_here(target: Path | str) -> list[str]:
    """The peer's requirements as ``"jsonschema<5 (4.26.0)"``."""
    return [f"{req} ({have})" for req, have, _ in requirements(target)]


def ensure_peer(target: Path = PEER_DIR) -> Path:
    """Install the pinned peer into ``target`` unless it is there already; return ``target``.
    Raises BenchError if it cannot be installed or its requirements are not met here."""
    if installed_version(target) != PEER_VERSION:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        try:
            proc = subprocess.run(
                [PY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                 "--no-deps", "--no-compile", "--target", str(staging),
                 f"{PEER}=={PEER_VERSION}"],
                capture_output=True, text=True, timeout=300)
            if proc.returncode != 0 or installed_version(staging) != PEER_VERSION:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
                raise BenchError(f"could not install {PEER}=={PEER_VERSION} into {staging} "
                                 f"(pip exited {proc.returncode}): {tail}")
            shutil.rmtree(target, ignore_errors=True)
            staging.rename(target)  # whole, or not at all
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    missing = missing_requirements(target)
    if missing:
        raise BenchError(f"{PEER} {PEER_VERSION} needs what this Python lacks: "
                         f"{', '.join(missing)}")
    return target


# ---------------------------------------------------------------------------------- verdicts


def ratio_target(what: str, ours: float, theirs: float, limit: float, unit: str,
                 digits: int = 1) -> Target:
    """A target ``ours <= limit * theirs``: measured as the ratio and both numbers; a miss
    says by how much ``ours`` exceeds the limit, in ``unit``."""
    ratio = ours / theirs if theirs else float("inf")
    passed = ratio <= limit
    measured = (f"{ratio:.2f}x ({ours:.{digits}f} vs {theirs:.{digits}f} {unit})")
    missed_by = None if passed else f"{ours - limit * theirs:.{digits}f} {unit}"
    return Target(what, f"<= {limit:g}x {PEER}", measured, passed, missed_by)


def overhead(counts: dict[int, tuple[int, int]]) -> dict[int, int]:
    """Models minus inputs for each size, from ``{size: (models, inputs)}``."""
    return {n: models - inputs for n, (models, inputs) in counts.items()}


def constant_overhead_targets(counts: dict[int, tuple[int, int]], limit: int,
                              where: str = "") -> list[Target]:
    """One target per size (``counts`` is ``{size: (models, inputs)}``, sizes ascending):
    at most one model per input plus a fixed few, that is models - inputs is at most
    ``limit`` and the same at every size (falling with size, when there are fewer models than
    inputs, passes too); growing with the size misses, at every size."""
    fixed = overhead(counts)
    extras = [fixed[n] for n in sorted(fixed)]
    grows = any(b > a for a, b in itertools.pairwise(extras))
    shape = ("the same at every size" if len(set(extras)) == 1
             else "grows with the fields" if grows else "falls with the fields")
    targets = []
    for n in sorted(fixed):
        models, inputs = counts[n]
        extra = fixed[n]
        why = []
        if grows:
            sizes = "/".join(map(str, sorted(fixed)))
            why.append(f"not fixed: {'/'.join(map(str, extras))} for {sizes} fields")
        if extra > limit:
            why.append(f"{extra - limit} models")
        targets.append(Target(
            f"Widget models per form, {n} string field{'s' if n != 1 else ''}{where}",
            f"models - inputs <= {limit}, the same at every size",
            f"{models} models, {inputs} inputs: {extra} more ({shape})", not why,
            "; ".join(why) or None))
    return targets
