"""Build cb2026: compiled by mypyc where a C compiler and mypy are present, pure Python elsewhere.

The metadata is in pyproject.toml; this file adds only the compiled modules. A wheel built
here holds the engine's modules twice, as C extensions and as the .py files they come from:
Python imports an extension module before a source file of the same name, so the compiled
engine runs, and the source stays beside it for a reader. Chapter 17 explains the build.

- No C compiler, or mypy missing from the build environment: a pure-Python wheel.
- mypyc or the C compiler failing all the same (a compiler that cannot build extensions,
  say): a pure-Python wheel, with the reason printed, rather than no wheel at all.
- `CB2026_PURE=1` (any value but empty or 0): a pure-Python wheel even where it could compile.
- An editable install (`pip install -e .`, what `make` does) stays pure Python: compiled
  modules in src/ would hide the chapters' changes until the next build.

The module list, mypyc's options and the compiler check are tools/compile_engine.py's, the
tool the book's measurements use, so both builds compile the same modules in the same way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))

from compile_engine import ENGINE_MODULES, MYPYC_OPTIONS, PACKAGE, missing_compiler  # noqa: E402


def pure_reason() -> str | None:
    """Why this build makes a pure-Python wheel, or None when it compiles the engine."""
    if os.environ.get("CB2026_PURE", "") not in ("", "0"):
        return "CB2026_PURE is set"
    if "editable_wheel" in sys.argv:
        return "an editable install runs the source in src/"
    return missing_compiler()


def extensions() -> list:
    """The engine's modules as C extensions (mypyc), or none for a pure-Python wheel."""
    reason = pure_reason()
    if reason:
        print(f"cb2026: building the pure-Python engine ({reason})", file=sys.stderr)
        return []
    from mypyc.build import mypycify

    # Paths relative to this file, as setuptools wants them; mypy finds the package in src/.
    paths = [f"src/{PACKAGE}/{name}.py" for name in ENGINE_MODULES
             if (ROOT / "src" / PACKAGE / f"{name}.py").exists()]
    print(f"cb2026: compiling {len(paths)} engine modules with mypyc", file=sys.stderr)
    try:
        return mypycify(paths, opt_level=MYPYC_OPTIONS["opt_level"],
                        group_name=MYPYC_OPTIONS["group_name"])
    except (Exception, SystemExit) as error:  # mypy reports its errors by exiting
        # An exit's code is a number; mypy's messages were printed just before it.
        reason = "its messages above" if isinstance(error, SystemExit) else error
        print(f"cb2026: building the pure-Python engine (mypyc failed: {reason})",
              file=sys.stderr)
        return []


class BuildOrFallBack(build_ext):
    """Builds the compiled modules; if the C compiler fails, leaves them all out."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # setuptools' CompileError, LinkError and the like
            print(f"cb2026: building the pure-Python engine (compiling failed: {error})",
                  file=sys.stderr)
            # A module compiled before the failure would shadow its source without the
            # shared library it needs: none of them may reach the wheel.
            for extension in self.extensions:
                Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
            self.extensions = []
            self.distribution.ext_modules = []
            # bdist_wheel chose a platform wheel before anything was compiled; it reads the
            # choice again only after this build, so the wheel can still be a pure one.
            wheel = self.distribution.command_obj.get("bdist_wheel")
            if wheel is not None:
                wheel.root_is_pure = True


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildOrFallBack})
