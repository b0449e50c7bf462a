"""deploy/kubernetes: each overlay rendered with `kubectl kustomize`,
validated offline against the Kubernetes schemas (kubernetes-validate,
strict: an unknown field fails), then checked for what the issue asks
(replicas, probes, security context, settings, the API key's Secret) and
its settings file loaded by Herald itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, e2e

KUSTOMIZE = ROOT / "deploy" / "kubernetes"
OVERLAYS = ["http", "stdio"]


def render(overlay: str) -> tuple[str, dict[str, dict]]:
    if shutil.which("kubectl") is None:
        pytest.fail("no kubectl: it renders the kustomizations (`kubectl kustomize`)")
    out = subprocess.run(["kubectl", "kustomize", str(KUSTOMIZE / "overlays" / overlay)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    docs = [d for d in yaml.safe_load_all(out.stdout) if d]
    return out.stdout, {d["kind"]: d for d in docs}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_overlay_validates_against_the_kubernetes_schemas(overlay, tmp_path):
    text, _ = render(overlay)
    rendered = tmp_path / f"{overlay}.yaml"
    rendered.write_text(text)
    validate = Path(sys.executable).with_name("kubernetes-validate")
    out = subprocess.run([str(validate), "--strict", "--quiet", str(rendered)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_typo_fails_validation(tmp_path):
    text, _ = render("http")
    broken = tmp_path / "typo.yaml"
    broken.write_text(text.replace("readinessProbe:", "readynessProbe:"))
    validate = Path(sys.executable).with_name("kubernetes-validate")
    out = subprocess.run([str(validate), "--strict", "--quiet", str(broken)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "readynessProbe" in out.stdout + out.stderr


def herald_container(kinds: dict[str, dict]) -> dict:
    (container,) = kinds["Deployment"]["spec"]["template"]["spec"]["containers"]
    return container


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pods_are_restricted_and_probed(overlay):
    _, kinds = render(overlay)
    pod = kinds["Deployment"]["spec"]["template"]["spec"]
    c = herald_container(kinds)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["automountServiceAccountToken"] is False
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["image"].startswith("ghcr.io/lorebase/lorebase-herald:")
    # Settings from the ConfigMap, as a file named by LOREBASE_CONFIG.
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["LOREBASE_CONFIG"] == "/etc/lorebase/lorebase.yaml"
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["settings"]["configMap"]["name"] == kinds["ConfigMap"]["metadata"]["name"]


def test_http_is_three_replicas_behind_a_service_with_an_hpa_and_a_budget():
    _, kinds = render("http")
    deployment, service = kinds["Deployment"], kinds["Service"]
    assert deployment["spec"]["replicas"] == 3
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert service["spec"]["selector"] == selector
    assert kinds["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"] == selector
    hpa = kinds["HorizontalPodAutoscaler"]["spec"]
    assert hpa["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["minReplicas"] == 3
    settings = yaml.safe_load(kinds["ConfigMap"]["data"]["lorebase.yaml"])["herald"]
    ns, name = service["metadata"]["namespace"], service["metadata"]["name"]
    assert settings["http"]["allowed_hosts"] == [name, f"{name}.{ns}", f"{name}.{ns}.svc", f"{name}.{ns}.svc.cluster.local"]
    assert "LOREBASE_API_KEY" not in {e["name"] for e in herald_container(kinds)["env"]}


def test_http_serves_metrics_on_a_port_of_its_own_with_a_bearer_and_probes_readiness_by_an_allowed_host():
    _, kinds = render("http")
    pod = kinds["Deployment"]["spec"]["template"]
    c = herald_container(kinds)
    settings = yaml.safe_load(kinds["ConfigMap"]["data"]["lorebase.yaml"])["herald"]
    assert settings["metrics"]["port"] == 9090
    assert {"name": "metrics", "containerPort": 9090, "protocol": "TCP"} in c["ports"]
    assert 9090 not in {p["targetPort"] for p in kinds["Service"]["spec"]["ports"]}
    assert pod["metadata"]["annotations"]["prometheus.io/port"] == "9090"
    bearer = next(e for e in c["env"] if e["name"] == "LOREBASE__HERALD__METRICS__BEARER_TOKEN")["value"]
    mount = next(m for m in c["volumeMounts"] if m["name"] == "metrics-token")
    assert bearer == f"secret://file/{mount['mountPath']}/token"
    secret = next(v for v in pod["spec"]["volumes"] if v["name"] == "metrics-token")["secret"]
    assert secret["secretName"] == "lorebase-herald-metrics"
    assert c["readinessProbe"]["httpGet"]["httpHeaders"] == [{"name": "Host", "value": "localhost"}]


def test_stdio_is_one_agent_s_herald_with_its_key_from_a_secret_file():
    _, kinds = render("stdio")
    assert kinds["Deployment"]["spec"]["replicas"] == 1
    assert not {"Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"} & kinds.keys()
    c = herald_container(kinds)
    key = next(e for e in c["env"] if e["name"] == "LOREBASE_API_KEY")["value"]
    assert key.startswith("secret://file//")
    mount = next(m for m in c["volumeMounts"] if m["name"] == "api-key")
    assert key == f"secret://file/{mount['mountPath']}/api-key"
    pod = kinds["Deployment"]["spec"]["template"]["spec"]
    secret = next(v for v in pod["volumes"] if v["name"] == "api-key")["secret"]
    assert secret["secretName"] == "lorebase-herald-agent-key"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_herald_accepts_the_settings_file(overlay, binaries, tmp_path):
    _, kinds = render(overlay)
    settings = tmp_path / "lorebase.yaml"
    settings.write_text(kinds["ConfigMap"]["data"]["lorebase.yaml"])
    out = subprocess.run([binaries["herald"], "tools"], capture_output=True, text=True, timeout=60,
                         env=e2e.clean_env({"LOREBASE_CONFIG": str(settings)}))
    assert out.returncode == 0, out.stderr
