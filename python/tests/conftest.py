import os
import pathlib
import shutil
import subprocess

import pytest

import aesx

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS = REPO / "vectors" / "wycheproof"


@pytest.fixture(scope="session")
def cli():
    """The `aesx` command: $AESX_CLI, or the workspace's build (built here
    with cargo if it is missing)."""
    env = os.environ.get("AESX_CLI")
    if env:
        return env
    for p in (REPO / "target" / "release" / "aesx", REPO / "target" / "debug" / "aesx"):
        if p.exists():
            return str(p)
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("no aesx binary and no cargo to build one (set AESX_CLI)")
    subprocess.run([cargo, "build", "-q", "-p", "aesx-cli"], cwd=REPO, check=True)
    return str(REPO / "target" / "debug" / "aesx")


@pytest.fixture(params=aesx.backends())
def backend(request):
    """Every backend this machine runs."""
    return request.param
