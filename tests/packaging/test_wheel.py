"""The built wheel: it ships every package and the rule files, and installed on its own it scans and answers impact."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from rofl import __version__

ROOT = Path(__file__).resolve().parent.parent.parent
NOT_SHIPPED = {"tests", "bench", "examples", "facts", "build", ".venv", ".git"}
COPY_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "bench", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "facts", "tests"
)


def project_packages() -> list[str]:
    """Every package of the checkout (a folder with ``__init__.py``, subpackages too), as the dotted name it
    installs under: ``rofl/commands`` is ``rofl.commands``, the top-level ``engine/`` is ``rofl.engine``."""
    found = []
    for top in sorted(ROOT.iterdir()):
        if top.name in NOT_SHIPPED or top.name.startswith(".") or not (top / "__init__.py").is_file():
            continue
        for init in sorted(top.rglob("__init__.py")):
            if "__pycache__" not in init.parts:
                parts = init.parent.relative_to(ROOT).parts
                found.append(".".join(parts if parts[0] == "rofl" else ("rofl", *parts)))
    return found


def declared_packages() -> list[str]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def test_pyproject_lists_every_package():
    assert sorted(declared_packages()) == sorted(project_packages())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the checkout (the build leaves nothing in the work tree), offline."""
    source = tmp_path_factory.mktemp("source") / "rofl"
    shutil.copytree(ROOT, source, ignore=COPY_IGNORE)
    dist = tmp_path_factory.mktemp("dist")
    build = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        str(source),
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(dist),
    ]
    done = subprocess.run(build, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (built,) = dist.glob("rofl-*.whl")
    return built


def test_wheel_ships_every_package_and_the_rule_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = project_packages()
    assert {"rofl.engine", "rofl.scanner", "rofl", "rofl.commands", "rofl.rules"} <= set(packages)
    missing = [p for p in packages if p.replace(".", "/") + "/__init__.py" not in names]
    assert missing == [], f"packages left out of the wheel: {missing}"
    rule_files = sorted(p.name for p in (ROOT / "rules").glob("*.rofl"))
    assert rule_files and all(f"rofl/rules/{name}" in names for name in rule_files)
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"rofl"}, f"the wheel's only top-level module is rofl, not {sorted(tops - {'rofl'})}"
    assert not any(n.startswith(("tests/", "bench/", "examples/")) for n in names)
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "rofl = rofl.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def fresh_venv(tmp_path: Path, wheel: Path, dependencies: str) -> Path:
    """A new virtual environment with the wheel installed; its bin folder.

    ``dependencies="borrowed"`` installs the wheel alone and lends the environment the packages this
    test run already has (offline, fast); ``"index"`` installs them from the package index as a user's
    ``pip install``/``pipx install`` would.
    """
    venv = tmp_path / "venv"
    if dependencies == "borrowed":
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index"]
        subprocess.run([*install, str(wheel)], check=True, capture_output=True)
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        # the dependencies only: a path a .pth line adds is not scanned for .pth files, so the editable
        # install of this checkout stays invisible
        lent = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        (Path(purelib) / "borrowed_dependencies.pth").write_text("\n".join(sorted(lent)) + "\n")
    else:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    return venv / "bin"


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env["ROFL_CONFIG_DIR"] = str(cwd / ".config")
    return subprocess.run([str(bin_dir / args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True, text=True)


def check_installed(bin_dir: Path, tmp_path: Path) -> None:
    """The installed ``rofl`` imports its own copy, scans a repository and answers impact as the checkout does."""
    work = tmp_path / "elsewhere"
    shutil.copytree(ROOT / "examples" / "shop", work / "shop")
    where = run(
        bin_dir,
        work,
        "python",
        "-c",
        "import rofl.engine, rofl.rules, rofl.scanner; print(rofl.rules.path('boot.rofl'))",
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_file()
    assert Path(where.stdout.strip()).is_relative_to(bin_dir.parent), where.stdout  # not the checkout

    version = run(bin_dir, work, "rofl", "--version")
    assert version.returncode == 0 and f"rofl, version {__version__}" in version.stdout, version.stdout + version.stderr

    scan = run(bin_dir, work, "rofl", "scan", "shop", "--out", "facts")
    assert scan.returncode == 0, scan.stderr
    assert (work / "facts" / "manifest.json").is_file()
    impact = run(bin_dir, work, "rofl", "impact", "--facts", "facts", "--changed", "src/domain/money.ts", "--json")
    assert impact.returncode == 0, impact.stderr

    checkout_bin = Path(sys.executable).parent
    reference = run(
        checkout_bin, work, "rofl", "impact", "--facts", "facts", "--changed", "src/domain/money.ts", "--json"
    )
    assert reference.returncode == 0, reference.stderr
    assert impact.stdout == reference.stdout
    assert "src/domain/money.ts" in impact.stdout


def test_installed_wheel_scans_and_answers_impact_outside_the_checkout(wheel, tmp_path):
    """Beside top-level packages named like rofl's folders (PyPI has a ``rules``), nothing collides."""
    bin_dir = fresh_venv(tmp_path, wheel, "borrowed")
    purelib = run(bin_dir, tmp_path, "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    for name in ("rules", "engine", "scanner", "adapters", "servers"):
        (Path(purelib.stdout.strip()) / name).mkdir()
        (Path(purelib.stdout.strip()) / name / "__init__.py").write_text(f"raise ImportError('another {name}')\n")
    check_installed(bin_dir, tmp_path)


@pytest.mark.slow
def test_wheel_installed_with_its_dependencies_from_the_index(wheel, tmp_path):
    """As ``pip install``/``pipx install`` does: the declared dependencies alone are enough."""
    check_installed(fresh_venv(tmp_path, wheel, "index"), tmp_path)


@pytest.mark.slow
def test_pipx_installs_the_checkout(tmp_path):
    """``pipx install .`` from a checkout (a copy of it): the command pipx exposes scans and answers impact."""
    source = tmp_path / "checkout"
    shutil.copytree(ROOT, source, ignore=COPY_IGNORE)
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True)
    got = subprocess.run([str(tools / "bin" / "pip"), "install", "-q", "pipx"], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"))
    done = subprocess.run(
        [str(tools / "bin" / "pipx"), "install", "--python", sys.executable, "."],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "bin" / "rofl").exists()
    check_installed(tmp_path / "pipx" / "venvs" / "rofl" / "bin", tmp_path)
