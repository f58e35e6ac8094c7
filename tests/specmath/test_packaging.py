"""`pip install .` gives the math package and the engines' one, and specmath runs where only NumPy is installed.

The wheel is built from a copy of the repository, since setuptools writes build/ and an
.egg-info folder beside the sources, in a fresh virtual environment holding the pinned
setuptools, so the test depends neither on what the development environment has installed
nor on a build backend fetched at an unpinned version.
"""

import os
import re
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import specmath

ROOT = Path(__file__).resolve().parents[2]

# What a copy of the repository leaves out: version control, caches and earlier builds.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", ".hypothesis", ".pytest_cache", ".ruff_cache", "build", "dist", "*.egg-info"
)


def pin(requirements: str, package: str) -> str:
    """The version ``package==X`` pins in one of the repository's requirement files."""
    text = (ROOT / requirements).read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(package)}==(\S+)", text, re.MULTILINE)
    assert found, f"{requirements} pins no {package}"
    return found.group(1)


def run(*args, cwd: Path) -> str:
    # Without PYTHONPATH the new environment sees only what is installed in it.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, args))} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_wheel_holds_specmath_and_engines_and_specmath_runs_with_numpy_only(tmp_path):
    source, wheels, outside = tmp_path / "source", tmp_path / "wheels", tmp_path / "elsewhere"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    outside.mkdir()
    run(sys.executable, "-m", "venv", tmp_path / "env", cwd=tmp_path)  # no system site packages
    python = tmp_path / "env" / "bin" / "python"
    numpy = f"numpy=={pin('requirements.txt', 'numpy')}"
    setuptools = f"setuptools=={pin('requirements-dev.txt', 'setuptools')}"
    run(python, "-m", "pip", "install", "-q", numpy, setuptools, cwd=tmp_path)

    run(python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels, source, cwd=tmp_path)
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        fields = Parser().parsestr(archive.read(metadata).decode())
    dist_info = metadata.split("/")[0]
    assert [n for n in names if not n.startswith(("specmath/", "engines/", f"{dist_info}/"))] == []
    modules = sorted(p.relative_to(ROOT).as_posix() for d in ("specmath", "engines") for p in (ROOT / d).rglob("*.py"))
    assert sorted(n for n in names if n.startswith(("specmath/", "engines/"))) == modules
    requires = [(re.match(r"[\w.-]+", r).group(), "extra ==" in r) for r in fields.get_all("Requires-Dist") or []]
    # specmath needs NumPy alone; engines' PyYAML and prometheus_client come with the "engines" extra only.
    assert requires == [("numpy", False), ("PyYAML", True), ("prometheus_client", True)]
    assert fields.get_all("Provides-Extra") == ["engines"]

    run(python, "-m", "pip", "install", "-q", "--no-index", wheel, cwd=tmp_path)  # numpy is there already
    code = "import specmath; print(specmath.__file__); print(specmath.optimal_k(0.8, 20))"
    where, result = run(python, "-c", code, cwd=outside).splitlines()
    assert Path(where).is_relative_to(tmp_path / "env")
    assert result == repr(specmath.optimal_k(0.8, 20))
    assert result.startswith("(np.int64(8), np.float64(3.09")  # the package docstring's (8, 3.09)
