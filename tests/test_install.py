"""`pip` builds the compiled engine where it can, and the pure one when asked or when the
compile fails (chapter 17).

The wheels are built with `pip wheel` from an sdist made of a copy of the files a build
reads (so the checkout gets no build folders), as `python -m build` and an install from an
index build them: the sdist must carry what setup.py imports. The environment's setuptools
and mypy build them (no build isolation: no network), then each is installed into a fresh
virtual environment of its own, where `cb2026 --version` must name its build. Without a C
compiler the compiled wheel cannot be made and the test is skipped, saying why, as is the
one of a compiler that fails (it follows a compiler check that passes); the pure one is
checked all the same.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from compile_engine import missing_compiler

pytestmark = [pytest.mark.stage("stage-17-speed"), pytest.mark.slow, pytest.mark.tooling,
              pytest.mark.timeout(1200)]

ROOT = Path(__file__).resolve().parents[1]
# What setup.py and pyproject.toml read: the metadata, the package, the tool that knows
# which modules to compile.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "src/cb2026",
                "tools/compile_engine.py")


def source_copy(folder: Path) -> Path:
    """A copy of the files a build of cb2026 reads, in `folder`."""
    for name in BUILD_INPUTS:
        source, target = ROOT / name, folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    return folder


def unpacked_sdist(source: Path, folder: Path, environment: dict[str, str]) -> Path:
    """Make the sdist of `source` with setuptools' build backend, unpack it into `folder`;
    return the unpacked tree, the only files a wheel built from the sdist can read."""
    dist = folder / "dist"
    subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta; "
         "build_meta.build_sdist(sys.argv[1])", str(dist)],
        check=True, cwd=source, env=environment, capture_output=True, timeout=300)
    (sdist,) = dist.glob("cb2026-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(folder / "unpacked", filter="data")
    (tree,) = (folder / "unpacked").iterdir()
    return tree


def build_and_install(tmp_path: Path, name: str, pure: bool,
                      compiler: str | None = None) -> tuple[Path, str]:
    """Build a wheel (pure if asked; with `compiler` as $CC if given), install it into a new
    venv; return the wheel and what the installed `cb2026 --version` prints."""
    wheels = tmp_path / f"{name}-wheel"
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("CB2026_PURE", "PYTHONPATH")}
    if pure:
        environment["CB2026_PURE"] = "1"
    if compiler is not None:
        environment["CC"] = compiler
    copy = source_copy(tmp_path / f"{name}-source")
    source = unpacked_sdist(copy, tmp_path / f"{name}-sdist", environment)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(wheels), str(source)],
        check=True, env=environment, timeout=900)
    (wheel,) = wheels.glob("cb2026-*.whl")
    venv = tmp_path / f"{name}-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # No dependencies: python-chess serves the match runner, not `cb2026 --version`.
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--no-deps", "--no-index", str(wheel)], check=True, env=environment,
                   timeout=300)
    answer = subprocess.run([str(venv / "bin" / "cb2026"), "--version"], capture_output=True,
                            text=True, check=True, env=environment, timeout=60)
    return wheel, answer.stdout.strip()


def test_the_pure_wheel_runs_pure_python(tmp_path: Path) -> None:
    wheel, version = build_and_install(tmp_path, "pure", pure=True)
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert version.startswith("cb2026 ") and version.endswith(", pure Python"), version


def test_the_compiled_wheel_runs_compiled(tmp_path: Path) -> None:
    reason = missing_compiler()
    if reason:
        pytest.skip(f"no compiled build possible here: {reason}")
    wheel, version = build_and_install(tmp_path, "compiled", pure=False)
    assert not wheel.name.endswith("-none-any.whl"), wheel.name
    assert version.startswith("cb2026 ") and version.endswith(", compiled (mypyc)"), version


def test_a_compiler_that_fails_gives_the_pure_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`false` passes the compiler check (it is on PATH) and fails every compile: the build
    must give the pure engine, as a wheel for every platform."""
    monkeypatch.setenv("CC", "false")
    reason = missing_compiler()
    if reason:
        pytest.skip(f"the fallback follows a compiler check that passes: {reason}")
    wheel, version = build_and_install(tmp_path, "failing", pure=False, compiler="false")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        assert not [name for name in archive.namelist() if name.endswith((".so", ".pyd"))]
    assert version.startswith("cb2026 ") and version.endswith(", pure Python"), version
