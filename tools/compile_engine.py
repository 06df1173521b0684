"""A compiled build of the engine: the same tangled source, turned into C extensions by mypyc.

usage: python tools/compile_engine.py [STAGE] [--force]

Compiles the engine modules of cb2026 (the package in src/, or as it was at STAGE) with
mypyc into build/compiled/NAME/, NAME being `src` or the stage id. Put that folder first on
`sys.path` and `import cb2026` gives the compiled engine (`cb2026.search.__file__` ends in
`.so`); the match runner's modules stay plain Python. Nothing is added to the source: mypyc
compiles the tangled modules as the chapters wrote them, type hints and all. A build is
reused while its source, mypy and Python are unchanged (a fingerprint in build-info.json);
`--force` rebuilds. Needs a C compiler and the
`compiled` extra (mypy, setuptools). `make compiled [STAGE=...]` runs this.

setup.py imports ENGINE_MODULES, MYPYC_OPTIONS and missing_compiler from here when `pip`
builds a wheel, in an environment that may hold nothing but setuptools and mypy: this
module imports only the standard library at the top (the stage tools, which need PyYAML,
inside the functions that use them).
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import hashlib
import importlib.metadata
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

PACKAGE = "cb2026"
# The engine proper; the match runner (match, game, openings, elo) stays interpreted.
ENGINE_MODULES = (
    "board", "move", "attacks", "movegen", "rules", "zobrist", "position",
    "evaluate", "evaluation", "see", "picker", "search", "tt", "limits", "perft", "cli",
)
INFO_FILE = "build-info.json"
# How mypyc compiles the engine, here and in setup.py: at its highest optimisation level, all
# modules in one C library (a group), so that calls between modules stay native C calls.
MYPYC_OPTIONS = {"opt_level": "3", "group_name": PACKAGE}
SETUP_SCRIPT = """\
from setuptools import setup
from mypyc.build import mypycify

setup(name="cb2026-compiled", ext_modules=mypycify({paths!r}, **{options!r}))
"""


def package_folder(stage: str, root: Path) -> Path:
    """The folder to import the engine of `stage` from (literate.stages.package_folder)."""
    from literate.stages import package_folder as stage_folder

    return stage_folder(stage, root)


def compiled_folder(stage: str | None = None, root: Path = ROOT) -> Path:
    """The folder that holds the compiled build of `stage` (of src/ when None)."""
    source = package_folder(stage, root) if stage else root / "src"
    name = "src" if source == root / "src" else source.name
    return root / "build" / "compiled" / name


def missing_compiler() -> str | None:
    """Why a compiled build cannot be made here, or None when it can."""
    # setuptools takes the compiler from $CC, else from the one Python was built with.
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler!r} is not on PATH)"
    # A compiler without Python's headers (no python3-dev package) fails on the first file.
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no Python headers ({headers} is missing)"
    try:
        importlib.metadata.version("mypy")
    except importlib.metadata.PackageNotFoundError:
        return "mypy (mypyc) is not installed: pip install -e '.[compiled]'"
    return None


def fingerprint(package: Path) -> str:
    """A digest of everything the build depends on: sources, this tool, mypy, Python."""
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.py")) + [Path(__file__)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(importlib.metadata.version("mypy").encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()[:16]


def source_digests(folder: Path) -> dict[str, str]:
    """A short digest of the code of each module of the engine in `folder` (a
    package_folder), by file name: which code a measurement ran, where its results alone
    cannot tell (a rewrite for speed that keeps every value, or a match resumed after the
    engine changed). Comments, docstrings and layout do not count (code_digest)."""
    return {path.name: code_digest(path.read_text())
            for path in sorted((folder / "cb2026").glob("*.py"))}


def code_digest(source: str) -> str:
    """A short digest of a module's syntax tree without its docstrings: two sources that
    differ only in comments, docstrings or layout run the same code and get one digest."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and statements:
                # A string standing alone as a statement does nothing when it runs.
                kept = [statement for statement in statements if not is_bare_string(statement)]
                setattr(node, field, kept or [ast.Pass()])
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def is_bare_string(statement: ast.AST) -> bool:
    """True for a statement that is a string literal and nothing else (a docstring)."""
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def changed_modules(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """The modules whose digests differ between two source_digests records (one
    missing from either counts as changed), in name order."""
    return sorted(name for name in recorded.keys() | current.keys()
                  if recorded.get(name) != current.get(name))


def is_compiled(folder: Path) -> bool:
    """True when `folder` holds a complete compiled build."""
    return (folder / INFO_FILE).exists() and any((folder / PACKAGE).glob("position.*.so"))


def run_mypyc(package: Path, work: Path) -> list[str]:
    """Compile the engine modules of `package` in the folder `work`; return their names."""
    sources = work / PACKAGE
    if sources.exists():
        shutil.rmtree(sources)
    shutil.copytree(package, sources, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    modules = [name for name in ENGINE_MODULES if (sources / f"{name}.py").exists()]
    paths = [f"{PACKAGE}/{name}.py" for name in modules]
    (work / "setup.py").write_text(SETUP_SCRIPT.format(paths=paths, options=MYPYC_OPTIONS))
    # The work folder keeps mypy's cache and the C files, so a rebuild redoes only what changed.
    completed = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=work, capture_output=True, text=True, check=False,
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout[-4000:] + completed.stderr[-4000:])
        raise RuntimeError(f"mypyc failed on {package} (output above)")
    return modules


def assemble(work: Path, modules: list[str], destination: Path, info: dict[str, object]) -> None:
    """Put the compiled modules, the plain ones and the shared library into `destination`."""
    staging = destination.with_name(f".new-{destination.name}")
    if staging.exists():
        shutil.rmtree(staging)
    (staging / PACKAGE).mkdir(parents=True)
    for path in (work / PACKAGE).iterdir():
        compiled = path.suffix == ".so"
        plain = path.suffix == ".py" and path.stem not in modules
        if compiled or plain:
            shutil.copy2(path, staging / PACKAGE / path.name)
    for library in work.glob("*.so"):  # the code of all modules, shared by their stubs
        shutil.copy2(library, staging / library.name)
    (staging / INFO_FILE).write_text(json.dumps(info, indent=1) + "\n")
    if destination.exists():
        shutil.rmtree(destination)
    staging.rename(destination)


def build_compiled(stage: str | None = None, root: Path = ROOT, force: bool = False) -> Path:
    """Return the compiled build's folder of `stage` (src/ when None), building it if needed."""
    source = package_folder(stage, root) if stage else root / "src"
    destination = compiled_folder(stage, root)
    destination.parent.mkdir(parents=True, exist_ok=True)
    wanted = fingerprint(source / PACKAGE)
    # One builder per build at a time: tests and make targets may ask for it together.
    with open(destination.parent / f".lock-{destination.name}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        up_to_date = is_compiled(destination) and (
            build_info(destination).get("fingerprint") == wanted)
        if up_to_date and not force:
            return destination
        reason = missing_compiler()
        if reason:
            raise RuntimeError(f"cannot compile the engine: {reason}")
        print(f"compiling {source / PACKAGE} with mypyc into {destination} ...", flush=True)
        started = time.perf_counter()
        work = destination.parent / ".work" / destination.name
        work.mkdir(parents=True, exist_ok=True)
        modules = run_mypyc(source / PACKAGE, work)
        seconds = round(time.perf_counter() - started, 1)
        info = {
            "fingerprint": wanted,
            "source": str(source.relative_to(root)),
            "compiled_modules": modules,
            "mypy": importlib.metadata.version("mypy"),
            "python": sys.version.split()[0],
            "compile_seconds": seconds,
        }
        assemble(work, modules, destination, info)
        print(f"compiled {len(modules)} modules in {seconds} s", flush=True)
    return destination


def build_info(folder: Path) -> dict[str, object]:
    """What a compiled build in `folder` was made from and with (its build-info.json)."""
    return json.loads((folder / INFO_FILE).read_text())


def engine_folder(stage: str | None = None, root: Path = ROOT) -> tuple[Path, str]:
    """The folder to import cb2026 from, compiled if possible, and which build it is."""
    reason = missing_compiler()
    if reason is None:
        return build_compiled(stage, root), "compiled"
    print(f"using the interpreted engine: {reason}", flush=True)
    return (package_folder(stage, root) if stage else root / "src"), "interpreted"


def main() -> int:
    """Build (or confirm) the compiled engine of one stage."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", nargs="?", default=None, help="a stage id (default: src/)")
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    options = parser.parse_args()
    folder = build_compiled(options.stage, force=options.force)
    info = build_info(folder)
    modules = info["compiled_modules"]
    assert isinstance(modules, list)
    print(f"{folder.relative_to(ROOT)}: {', '.join(map(str, modules))} compiled "
          f"(mypy {info['mypy']}, {info['compile_seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
