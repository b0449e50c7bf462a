"""Fixtures of the deploy tests: the images built by scripts/test-deploy.sh
(HERALD_IMAGE, SANDBOX_IMAGE), a Docker network, the sandbox Keeper's image
on it, and the helpers of the end-to-end suite (tests/e2e-python).

Every container and network made here is named with DEPLOY_PREFIX and
removed at the end (scripts/test-deploy.sh removes anything left over).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "tests" / "e2e-python"
sys.path.insert(0, str(E2E))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# The end-to-end suite's helpers, under another name than this conftest.
e2e = _load("herald_e2e", E2E / "conftest.py")
binaries = e2e.binaries
sandbox = e2e.sandbox
anyio_backend = e2e.anyio_backend

HERALD_IMAGE = os.environ.get("HERALD_IMAGE", "lorebase-herald:test")
SANDBOX_IMAGE = os.environ.get("SANDBOX_IMAGE", "lorebase-sandbox:test")
PREFIX = os.environ.get("DEPLOY_PREFIX", "herald-deploy-test")


def docker(*args: str, check: bool = True, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=check, timeout=timeout, **kw)


def unique(name: str) -> str:
    return f"{PREFIX}-{name}-{uuid.uuid4().hex[:6]}"


def wait_healthy(container: str, timeout: float = 60) -> None:
    """Waits for the image's HEALTHCHECK (`lorebase-herald health`) to pass."""
    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        status = docker("inspect", "-f", "{{.State.Health.Status}}", container).stdout.strip()
        if status == "healthy":
            return
        time.sleep(0.5)
    logs = docker("logs", container, check=False).stderr[-2000:]
    raise AssertionError(f"{container} is {status!r}, not healthy, after {timeout}s:\n{logs}")


@pytest.fixture(scope="session", autouse=True)
def engine() -> None:
    if shutil.which("docker") is None or docker("info", check=False).returncode != 0:
        pytest.fail("no Docker engine answers: run scripts/test-deploy.sh (it starts one)")
    for image in (HERALD_IMAGE, SANDBOX_IMAGE):
        if docker("image", "inspect", image, check=False).returncode != 0:
            pytest.fail(f"no image {image}: run scripts/test-deploy.sh (it builds it)")


@pytest.fixture(scope="session")
def network() -> Iterator[str]:
    name = unique("net")
    docker("network", "create", name)
    yield name
    docker("network", "rm", name, check=False)


@dataclass
class KeeperContainer:
    name: str
    url: str  # as containers on the network reach it
    keys: dict[str, str]


@pytest.fixture(scope="session")
def keeper(network) -> Iterator[KeeperContainer]:
    """The sandbox Keeper's image, auth mode api_key, on the test network."""
    name = unique("keeper")
    docker("run", "-d", "--name", name, "--network", network, SANDBOX_IMAGE,
           "--host", "0.0.0.0", "--port", "8080", "--auth", "api_key", "--seed", "7")
    try:
        deadline = time.monotonic() + 30
        ready = None
        while ready is None and time.monotonic() < deadline:
            for line in docker("logs", name).stdout.splitlines():
                if line.startswith("LOREBASE_SANDBOX_READY "):
                    ready = json.loads(line.split(" ", 1)[1])
            time.sleep(0.2)
        assert ready, "the sandbox container printed no READY line"
        keys = {k["principal"]: k["key"] for k in ready["keys"]}
        yield KeeperContainer(name=name, url=f"http://{name}:8080", keys=keys)
    finally:
        docker("rm", "-f", name, check=False)
