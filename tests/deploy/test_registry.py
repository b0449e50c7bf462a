"""server.json (the MCP Registry's listing) against the registry's schema
(deploy/registry/), and in step with the packages it lists."""

from __future__ import annotations

import copy
import json
import re
import tomllib

import jsonschema
import pytest

from conftest import ROOT

SCHEMA = ROOT / "deploy" / "registry" / "server.schema.2025-12-11.json"


def load() -> tuple[dict, jsonschema.Draft7Validator]:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return json.loads((ROOT / "server.json").read_text()), validator


def test_server_json_is_valid():
    server, validator = load()
    assert server["$schema"] == json.loads(SCHEMA.read_text())["$id"]
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(server)]
    assert not errors, errors


@pytest.mark.parametrize(
    "breakage",
    [
        lambda s: s.pop("version"),
        lambda s: s.update(name="no-slash"),
        lambda s: s.update(description="x" * 101),
        lambda s: s["packages"][0].update(version="latest"),
        lambda s: s["packages"][1].pop("transport"),
        lambda s: s["packages"][2]["environmentVariables"][0].pop("name"),
    ],
)
def test_the_schema_is_not_vacuous(breakage):
    server, validator = load()
    broken = copy.deepcopy(server)
    breakage(broken)
    assert list(validator.iter_errors(broken))


def test_it_lists_npm_pypi_and_the_image_at_the_workspace_version():
    server, _ = load()
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    npm = json.loads((ROOT / "npm" / "package.json").read_text())
    assert server["version"] == version == npm["version"]
    by_type = {p["registryType"]: p for p in server["packages"]}
    assert set(by_type) == {"npm", "pypi", "oci"}
    assert by_type["npm"]["identifier"] == npm["name"]
    assert by_type["npm"]["version"] == version
    pyproject = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
    assert by_type["pypi"]["identifier"] == pyproject["project"]["name"]
    assert by_type["pypi"]["version"] == version
    assert by_type["oci"]["identifier"].endswith(f"/lorebase-herald:{version}")
    for package in server["packages"]:
        assert package["transport"] == {"type": "stdio"}
        names = [e["name"] for e in package["environmentVariables"]]
        assert names == ["LOREBASE_URL", "LOREBASE_API_KEY", "LOREBASE_DOMAIN", "LOREBASE_BRANCH"]
        key = package["environmentVariables"][1]
        assert key["isSecret"] is True


def test_every_listing_names_the_server():
    server, _ = load()
    name = server["name"]
    assert json.loads((ROOT / "npm" / "package.json").read_text())["mcpName"] == name
    assert f"mcp-name: {name}" in (ROOT / "python" / "README.md").read_text()
    label = re.search(r'io\.modelcontextprotocol\.server\.name="([^"]+)"', (ROOT / "deploy" / "docker" / "Dockerfile").read_text())
    assert label and label.group(1) == name
