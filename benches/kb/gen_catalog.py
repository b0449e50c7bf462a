#!/usr/bin/env python3
"""Generates a synthetic OKF markdown catalog for the KB benchmarks.

    python3 benches/kb/gen_catalog.py OUT_DIR --entries 10000 [--seed 7] [--size 2048]

Entries are ~SIZE bytes each (frontmatter + body), spread over nested folders
(<type>/<area>/<slug>-<n>.md, about 200 per folder), with realistic fields
(type, title, description, resource, tags, sometimes status, last_validated,
timestamp and fingerprint) and bodies mixing prose with identifiers (versions,
snake_case tool names, kebab-case workloads, CamelCase kinds). The same seed
always gives the same catalog. Stdlib only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys

TYPES = ["runbook", "incident", "howto", "postmortem", "known-issue", "decision"]
AREAS = ["k8s", "network", "storage", "registry", "observability", "iam", "ci", "database",
         "dns", "ingress", "billing", "search"]
WORKLOADS = ["harbor-core", "harbor-jobservice", "coredns", "ingress-nginx", "karpenter",
             "cert-manager", "external-dns", "prometheus-server", "loki-gateway",
             "argocd-repo-server", "vault-agent", "postgres-primary", "redis-sentinel",
             "kafka-broker", "keda-operator", "istio-ingressgateway", "aws-load-balancer-controller",
             "cluster-autoscaler", "fluent-bit", "tempo-distributor"]
KINDS = ["Deployment", "StatefulSet", "DaemonSet", "CronJob", "Service", "Ingress",
         "EC2NodeClass", "NodePool", "Certificate", "PersistentVolumeClaim", "HorizontalPodAutoscaler"]
SYMPTOMS = ["OOMKilled", "CrashLoopBackOff", "ImagePullBackOff", "latency spike", "5xx errors",
            "disk pressure", "certificate expiry", "DNS timeouts", "throttling", "leader election loss",
            "connection resets", "stale cache", "quota exceeded", "evictions", "slow queries"]
WORDS = ("the a of to and in on for with after before during when restart rollout upgrade memory cpu "
         "limit request node pod cluster namespace replica volume mount secret token webhook "
         "timeout retry backoff queue worker scheduler alert page oncall dashboard metric log "
         "trace span error warning config flag release version patch migration rollback drain "
         "cordon taint toleration affinity probe readiness liveness endpoint gateway proxy tls "
         "handshake cipher bucket object lifecycle snapshot backup restore index shard replica "
         "lag consumer offset partition topic throughput budget cost owner team escalate").split()
TOOLS = ["kb_search", "kubectl_rollout", "helm_upgrade", "aws_ec2_describe", "lorebase_query",
         "vault_read", "pg_dump", "redis_cli", "argocd_sync", "terraform_apply"]


def version(rng: random.Random) -> str:
    return f"v{rng.randint(0, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    # Sprinkle identifiers so identifier queries have something to find.
    roll = rng.random()
    if roll < 0.25:
        words.insert(rng.randrange(len(words)), rng.choice(WORKLOADS))
    elif roll < 0.40:
        words.insert(rng.randrange(len(words)), version(rng))
    elif roll < 0.50:
        words.insert(rng.randrange(len(words)), rng.choice(TOOLS))
    elif roll < 0.58:
        words.insert(rng.randrange(len(words)), rng.choice(KINDS))
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def entry(rng: random.Random, n: int, size: int) -> tuple[str, str]:
    kind = rng.choice(TYPES)
    area = rng.choice(AREAS)
    workload = rng.choice(WORKLOADS)
    symptom = rng.choice(SYMPTOMS)
    k8s_kind = rng.choice(KINDS)
    title = f"{workload} {symptom} after {rng.choice(['upgrade', 'rollout', 'node drain', 'config change', 'traffic surge'])} to {version(rng)}"
    slug = f"{workload}-{symptom.lower().replace(' ', '-')}-{n}"
    folder = f"{kind}/{area}/{n // 200:04d}"
    lines = ["---", f"type: {kind}", f"title: {title}",
             f"description: {sentence(rng)}",
             f"resource: {k8s_kind}/{workload}",
             f"tags: [{area}, {workload}, {symptom.lower().replace(' ', '-')}]"]
    if rng.random() < 0.3:
        lines.append(f"alert_resource: {workload}-{rng.choice(['high-latency', 'down', 'errors'])}")
    if rng.random() < 0.15:
        lines.append(f"status: {rng.choice(['retired', 'draft'])}")
    if rng.random() < 0.5:
        lines.append(f"last_validated: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    if rng.random() < 0.4:
        lines.append(f"timestamp: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z")
        lines.append(f"fingerprint: {hashlib.sha256(slug.encode()).hexdigest()[:16]}")
    lines += ["---", "", f"# {title}", ""]
    text = "\n".join(lines)
    sections = ["## Symptoms", "## Cause", "## Fix", "## Verify"]
    body: list[str] = []
    while len(text) + sum(len(b) + 1 for b in body) < size:
        if rng.random() < 0.12 and sections:
            body.append("\n" + sections.pop(0) + "\n")
        elif rng.random() < 0.08:
            body.append(f"\n```\nkubectl -n {area} rollout restart {k8s_kind.lower()}/{workload}\n```\n")
        else:
            body.append(sentence(rng))
    return f"{folder}/{slug}.md", text + "\n".join(body) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="catalog directory to create (must not exist or be empty)")
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--size", type=int, default=2048, help="approximate bytes per entry")
    args = parser.parse_args()
    if os.path.isdir(args.out) and os.listdir(args.out):
        print(f"{args.out} exists and is not empty", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    total = 0
    made: set[str] = set()
    for n in range(args.entries):
        path, text = entry(rng, n, args.size)
        full = os.path.join(args.out, path)
        folder = os.path.dirname(full)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text)
    # Repository documents and hidden files the indexer must skip.
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8") as f:
        f.write("# Synthetic catalog\n")
    os.makedirs(os.path.join(args.out, ".git"), exist_ok=True)
    print(f"{args.entries} entries, {total / 1e6:.1f} MB, in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
