"""The lock files: every package the requirements name is pinned there with hashes, and the
environment the tests run in is the one the dev lock describes (``make lock`` regenerates them)."""

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def normalized(name: str) -> str:
    """PEP 503's normalized name, as pip and uv compare names."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(path: Path) -> dict[str, str]:
    """The pins a requirements file states itself (its ``-r`` includes are read separately)."""
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = PIN.match(line)
        assert match, f"{path.name}: {line!r} is not pinned as name==version"
        pins[normalized(match[1])] = match[2]
    return pins


def lock(path: Path) -> dict[str, tuple[str, list[str]]]:
    """Each locked package's version and its hashes, from uv's requirements format."""
    entries: dict[str, tuple[str, list[str]]] = {}
    current = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not raw[0].isspace():
            match = PIN.match(line)
            assert match, f"{path.name}: {line!r} is not pinned as name==version"
            current = normalized(match[1])
            assert current not in entries, f"{path.name}: {current} appears twice"
            entries[current] = (match[2], [])
        else:
            assert current is not None, f"{path.name}: {line!r} continues no requirement"
            entries[current][1].extend(re.findall(r"--hash=(sha256:[0-9a-f]{64})", line))
    return entries


RUNTIME = requirements(ROOT / "requirements.txt")
DEV = requirements(ROOT / "requirements-dev.txt")
RUNTIME_LOCK = lock(ROOT / "requirements.lock")
DEV_LOCK = lock(ROOT / "requirements-dev.lock")


@pytest.mark.parametrize(
    ("wanted", "locked", "name"),
    [(RUNTIME, RUNTIME_LOCK, "requirements.lock"), ({**RUNTIME, **DEV}, DEV_LOCK, "requirements-dev.lock")],
    ids=["runtime", "dev"],
)
def test_every_requirement_is_pinned_at_its_version_in_the_lock(wanted, locked, name):
    assert wanted, "no requirement read"
    for package, pinned in wanted.items():
        assert package in locked, f"{package} is not in {name}: run make lock"
        assert locked[package][0] == pinned, f"{package}: {pinned} required, {locked[package][0]} in {name}"


@pytest.mark.parametrize("locked", [RUNTIME_LOCK, DEV_LOCK], ids=["runtime", "dev"])
def test_every_locked_package_has_a_hash(locked):
    assert len(locked) > len(RUNTIME)  # the transitive packages too
    assert [package for package, (_, hashes) in locked.items() if not hashes] == []


def test_the_dev_lock_holds_the_runtime_lock():
    # make run and make test would otherwise run the app on different packages.
    assert {p: DEV_LOCK.get(p, ("missing",))[0] for p in RUNTIME_LOCK} == {p: v for p, (v, _) in RUNTIME_LOCK.items()}


def test_installed_versions_are_the_locked_ones():
    def installed(package):
        try:
            return version(package)
        except PackageNotFoundError:
            return None

    differ = {p: (v, installed(p)) for p, (v, _) in DEV_LOCK.items() if installed(p) != v}
    assert differ == {}, "(locked, installed) differ: make test reinstalls from the lock"
