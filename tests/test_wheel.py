"""The wheel and the sdist as shipped, proved from an install rather than from the checkout.

``python -m build`` builds the sdist from the checkout and then the wheel from that sdist (so the
sdist is proved whole enough to build from), with hatchling fetched into the build's own
environment. Each file the wheel must carry is named here: a file that only the checkout has
(the app bundle, the demo's page, ``py.typed``, the compiled text catalogues) would pass every
other test and fail only once installed. The wheel is then installed, with its dependencies,
into a clean virtual environment, where the quickstart notebook runs headless from that install
(its forms answered by the respond policy) and a small program of the public API passes
``mypy --strict``. They install from the package registry, so they take a minute or two.
"""

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers.clean_venv import clean_env, quickstart_ran, run_quickstart, sh
from helpers.notebooks import NOTEBOOKS, code_cell, result

import nb_elicit

# once: the files of the build do not depend on the Python that builds them, and the kernel
# paths the quickstart takes run on every Python elsewhere. blocking_kernel: the quickstart's
# cells wait for their forms.
pytestmark = [pytest.mark.once, pytest.mark.blocking_kernel]

REPO = Path(__file__).resolve().parent.parent
PROGRAM = Path(__file__).parent / "fixtures" / "public_api_use.py"
#: The mypy that checks the program, installed in the clean environment beside the wheel.
MYPY = "mypy==2.4.1"

#: What the wheel must carry besides the Python modules, each named: nb_elicit reads them at
#: run time (or a type checker does), and no import would notice one missing.
IN_THE_WHEEL = [
    "nb_elicit/py.typed",
    "nb_elicit/_ui/static/app_host.js",
    "nb_elicit/_ui/static/app_loader.js",
    "nb_elicit/demo/static/clock_app.html",
    "nb_elicit/_core/locale/en/LC_MESSAGES/nb_elicit.mo",
    "nb_elicit/_core/locale/zh/LC_MESSAGES/nb_elicit.mo",
    "nb_elicit/_core/locale/en/LC_MESSAGES/nb_elicit.po",
    "nb_elicit/_core/locale/zh/LC_MESSAGES/nb_elicit.po",
    "nb_elicit/__init__.py",
    "nb_elicit/demo/__main__.py",
]
#: The same kinds of files found in the checkout, so that one added later is carried too.
IN_THE_WHEEL_BY_PATTERN = ["nb_elicit/_ui/static/*.js", "nb_elicit/demo/static/*",
                           "nb_elicit/_core/locale/*/LC_MESSAGES/nb_elicit.mo"]
#: What the sdist must carry besides the package: what builds it, what tests it, what
#: documents it.
IN_THE_SDIST = [
    "pyproject.toml", "README.md", "CHANGELOG.md",
    "tests/conftest.py", "tests/test_wheel.py", "tests/fixtures/public_api_use.py",
    "tests/helpers/notebooks.py", "docs/architecture.md", "notebooks/quickstart.ipynb",
    "scripts/compile_texts.py", "scripts/test.sh",
]
#: Folders whose every tracked file the sdist carries.
SDIST_FOLDERS = ("nb_elicit/", "tests/", "docs/", "notebooks/")
#: What no build may carry.
NEVER = (".git/", ".venv/", ".cache/", "__pycache__/")

def tracked(folder: str) -> list[str]:
    """The checkout's files under ``folder`` that git tracks (none when git is not there)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", folder], cwd=REPO,
                                capture_output=True, check=True, timeout=60).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return []
    return [name for name in listed.split("\0") if name and (REPO / name).is_file()]


def missing(names: set[str], wanted: list[str]) -> list[str]:
    return [name for name in wanted if name not in names]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("wheel")


@pytest.fixture(scope="module")
def home(work) -> Path:
    path = work / "home"
    path.mkdir()
    return path


@pytest.fixture(scope="module")
def built(work) -> dict[str, Path]:
    """The sdist and the wheel, built from the checkout as a release would be."""
    out = work / "dist"
    # (this Python's own environment: build is one of the test extra's packages)
    sh([sys.executable, "-m", "build", "--outdir", out, REPO], work, dict(os.environ), 600)
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(out.iterdir())
    return {"sdist": sdists[0], "wheel": wheels[0]}


@pytest.fixture(scope="module")
def venv(work, home, built) -> Path:
    """A clean virtual environment with the wheel installed (its dependencies from the
    registry), and what running a notebook and checking types needs besides."""
    path = work / "venv"
    sh([sys.executable, "-m", "venv", path], work, clean_env(home), 120)
    sh([path / "bin" / "python", "-m", "pip", "install", "--quiet", built["wheel"],
        "ipykernel>=7.4", "nbclient>=0.10", "nbformat>=5.9", MYPY],
       home, clean_env(home, path), 900)
    return path


@pytest.mark.timeout(900)
def test_the_wheel_carries_every_file_nb_elicit_reads(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    assert missing(names, IN_THE_WHEEL) == []
    found = [str(path.relative_to(REPO)) for pattern in IN_THE_WHEEL_BY_PATTERN
             for path in sorted(REPO.glob(pattern))]
    assert len(found) >= 4, found
    assert missing(names, found) == []
    # Only the package: no tests, docs nor notebooks, and nothing of a checkout's own.
    assert {name.split("/")[0] for name in names} == {
        "nb_elicit", f"nb_elicit-{nb_elicit.__version__}.dist-info"}
    assert not [name for name in names if any(part in name for part in NEVER)]
    # The version is the package's: one place, read by the build.
    assert built["wheel"].name == f"nb_elicit-{nb_elicit.__version__}-py3-none-any.whl"


@pytest.mark.timeout(900)
def test_the_sdist_carries_the_package_its_tests_and_its_docs(built):
    top = f"nb_elicit-{nb_elicit.__version__}/"
    with tarfile.open(built["sdist"]) as sdist:
        names = {name.removeprefix(top) for name in sdist.getnames()}
    assert missing(names, IN_THE_SDIST + IN_THE_WHEEL) == []
    for folder in SDIST_FOLDERS:
        files = tracked(folder)
        assert files or not (REPO / ".git").exists(), folder
        assert missing(names, files) == [], folder
    assert not [name for name in names if any(part in name for part in NEVER)]


@pytest.mark.timeout(900)
def test_the_installed_wheel_runs_the_quickstart_headless(venv, home, work):
    python = venv / "bin" / "python"
    env = clean_env(home, venv)
    where = sh([python, "-c", "import nb_elicit, importlib.metadata as md; "
                "print(nb_elicit.__file__); print(md.version('nb-elicit'))"], home, env, 60)
    file, version = where.split()
    assert Path(file).is_relative_to(venv), file
    assert version == nb_elicit.__version__

    # The notebook is copied out of the checkout, so that nothing of it is on the kernel's path.
    notebook = work / "quickstart.ipynb"
    shutil.copy(NOTEBOOKS / "quickstart.ipynb", notebook)
    nb = run_quickstart(python, notebook, work / "quickstart.out.ipynb", home, venv)
    quickstart_ran(nb, python)
    assert (f"Connected 'demo': nb-elicit-demo {nb_elicit.__version__}"
            in result(code_cell(nb, "%mcp connect demo")))


@pytest.mark.timeout(900)
def test_a_program_of_the_public_api_passes_mypy_strict_against_the_wheel(venv, home, work):
    """The program (tests/fixtures/public_api_use.py) is checked where the checkout is not on
    mypy's path: the types it sees are the installed wheel's."""
    program = work / "program" / PROGRAM.name
    program.parent.mkdir()
    shutil.copy(PROGRAM, program)
    done = subprocess.run([venv / "bin" / "python", "-m", "mypy", "--strict", "--no-incremental",
                           "--cache-dir", os.devnull, program.name], cwd=program.parent,
                          env=clean_env(home, venv), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found in 1 source file" in done.stdout
