"""How far the processor's arithmetic moves chapter 13.1's fit: the same fit, on the same
data with the same code, under several choices of BLAS kernels, numpy loops and threads.

usage: python tools/tuning_kernels.py [--output FILE]

numpy hands its matrix products to OpenBLAS, which picks a kernel for the processor it finds
(one for AVX-512, another for AVX2 only, ...) and splits a product among its threads; numpy
picks its own loops for the processor too. Each choice adds in its own order, and over the
fit's steps the last bits add up. OPENBLAS_CORETYPE forces one of OpenBLAS's kernels,
NPY_DISABLE_CPU_FEATURES turns numpy's AVX-512 loops off, and OPENBLAS_NUM_THREADS sets the
threads: this tool runs the fit once under each setting, each in a fresh Python, and writes
the weights it keeps (unrounded) and the step they come from to
book/data/stage-13.1-tuning/kernels.json, which the chapter compares with the engine's
literals. A setting the machine cannot run (a kernel for instructions it lacks) is recorded
as failed. Not a timing: the machine may be busy. About five seconds a fit.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from quiet import cpu_model  # noqa: E402

OUTPUT = ROOT / "book" / "data" / "stage-13.1-tuning" / "kernels.json"
AVX512_LOOPS = "X86_V4 AVX512_ICL AVX512_SPR"  # numpy 2's AVX-512 targets
SETTINGS: dict[str, dict[str, str]] = {
    "one thread, the processor's own kernels (the chapter's)": {"OPENBLAS_NUM_THREADS": "1"},
    "two threads": {"OPENBLAS_NUM_THREADS": "2"},
    "one thread, OpenBLAS's Haswell kernels (AVX2)": {
        "OPENBLAS_NUM_THREADS": "1", "OPENBLAS_CORETYPE": "Haswell"},
    "one thread, OpenBLAS's Sandy Bridge kernels (AVX)": {
        "OPENBLAS_NUM_THREADS": "1", "OPENBLAS_CORETYPE": "Sandybridge"},
    "one thread, numpy without its AVX-512 loops": {
        "OPENBLAS_NUM_THREADS": "1", "NPY_DISABLE_CPU_FEATURES": AVX512_LOOPS},
    "one thread, Haswell kernels, numpy without its AVX-512 loops": {
        "OPENBLAS_NUM_THREADS": "1", "OPENBLAS_CORETYPE": "Haswell",
        "NPY_DISABLE_CPU_FEATURES": AVX512_LOOPS},
}
# The fit of chapter 13.1, as `python -m cb2026.tuning` runs it, reporting what it keeps.
FIT = ("import json; from cb2026.tuning import DATA_SET, read_positions, tune; "
       "result = tune(read_positions(DATA_SET)[1]); "
       "print(json.dumps({'best_step': result.fit.best_step, "
       "'vector': result.fit.vector.tolist()}))")


def fit_under(environment: dict[str, str]) -> dict[str, object]:
    """The step and the unrounded weights the fit keeps under `environment`, or the error."""
    clean = {name: value for name, value in os.environ.items()
             if not name.startswith(("OPENBLAS_", "NPY_", "OMP_"))}
    completed = subprocess.run(
        [sys.executable, "-c", FIT], cwd=ROOT, capture_output=True, text=True, check=False,
        env={**clean, **environment, "PYTHONPATH": str(ROOT / "src")}, timeout=900)
    if completed.returncode != 0:
        return {"failed": completed.stderr.strip().splitlines()[-1:]}
    return json.loads(completed.stdout)


def processor_flags() -> dict[str, bool]:
    """Whether the processor has the instructions the kernels are chosen by."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("flags")), [])
    return {flag: flag in flags for flag in ("avx", "avx2", "avx512f")}


def main() -> int:
    """Run the fit under every setting and write the data file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args()
    runs = []
    for label, environment in SETTINGS.items():
        result = fit_under(environment)
        print(label, {key: value for key, value in result.items() if key != "vector"},
              flush=True)
        runs.append({"setting": label, "environment": environment, **result})
    options.output.write_text(json.dumps({
        "command": "python tools/tuning_kernels.py",
        "cpu": cpu_model(), "flags": processor_flags(),
        "numpy": importlib.metadata.version("numpy"),
        "runs": runs,
    }, indent=1) + "\n")
    print(f"wrote {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
