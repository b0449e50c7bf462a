//! Ranking: identifiers are findable, and the field boosts (title, tags and
//! resource above the body) rank better than plain BM25 over all fields on a
//! small labelled set of queries.

use crate::kb_support;

use herald_core::kb::{FieldBoosts, KbCatalog};
use kb_support::{entry, open, write};

fn top_paths(catalog: &KbCatalog, query: &str, k: usize) -> Vec<String> {
    catalog
        .search(query, k)
        .unwrap()
        .into_iter()
        .map(|hit| hit.entry.path.clone())
        .collect()
}

#[test]
fn identifiers_are_found_whole_and_by_their_parts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "release/harbor-v182.md",
        &entry(
            "title: Harbor upgrade",
            "Upgrade Harbor to v1.8.2 to fix replication.",
        ),
    );
    write(
        root,
        "release/harbor-v183.md",
        &entry(
            "title: Harbor upgrade",
            "v1.8.3 and v1.7.2 changed the API; see 8 2 notes.",
        ),
    );
    write(
        root,
        "tools/kb.md",
        &entry("title: Agent tools", "Call kb_search first, then kb_get."),
    );
    write(
        root,
        "tools/other.md",
        &entry(
            "title: Agent notes",
            "Search the kb before you page anyone.",
        ),
    );
    write(
        root,
        "rb/harbor-core.md",
        &entry(
            "title: Registry pods\nresource: Deployment/harbor-core",
            "Restart the pods.",
        ),
    );
    write(
        root,
        "rb/core-dump.md",
        &entry(
            "title: Harbor core dump",
            "A core dump of the harbor jobservice.",
        ),
    );
    write(
        root,
        "rb/karpenter.md",
        &entry(
            "title: Node drift",
            "The EC2NodeClass AMI selector changed.",
        ),
    );
    write(
        root,
        "rb/ec2.md",
        &entry("title: EC2 classes", "Each EC2 node class has a cost."),
    );
    let catalog = open(root);

    assert_eq!(top_paths(&catalog, "v1.8.2", 1), ["release/harbor-v182.md"]);
    assert_eq!(top_paths(&catalog, "kb_search", 1), ["tools/kb.md"]);
    assert_eq!(top_paths(&catalog, "harbor-core", 1), ["rb/harbor-core.md"]);
    assert_eq!(top_paths(&catalog, "EC2NodeClass", 1), ["rb/karpenter.md"]);
    // Case does not matter; parts find the compounds that contain them.
    assert_eq!(top_paths(&catalog, "ec2nodeclass", 1), ["rb/karpenter.md"]);
    assert!(top_paths(&catalog, "NodeClass", 10).contains(&"rb/karpenter.md".to_string()));
    assert!(top_paths(&catalog, "jobservice", 10) == ["rb/core-dump.md"]);
    assert!(top_paths(&catalog, "Deployment", 10) == ["rb/harbor-core.md"]);
    // Query syntax characters are just text.
    assert_eq!(
        top_paths(&catalog, "title:\"harbor-core\" AND (", 1),
        ["rb/harbor-core.md"]
    );
}

/// A filler sentence that matches none of the labelled queries.
const FILLER: &str = "The team reviewed dashboards, paged the owner and wrote follow-up actions. \
    Timelines were reconstructed from chat and the deploy log. ";

/// (query, relevant entry, its fields, its body, distractor, its fields, its body)
const LABELLED: [(&str, &str, &str, &str, &str, &str, &str); 8] = [
    (
        "cert-manager renewal stuck",
        "rb/cert-manager-renewal.md",
        "type: runbook\ntitle: cert-manager certificate renewal stuck",
        "Check the ACME challenge, delete the failed CertificateRequest and let the controller retry.",
        "pm/tls-outage.md",
        "type: postmortem\ntitle: TLS outage on the public ingress",
        "The renewal was stuck because cert-manager lost its lease. After cert-manager restarted the renewal was stuck again until cert-manager was scaled to one replica.",
    ),
    (
        "coredns timeouts",
        "rb/coredns-timeouts.md",
        "type: runbook\ntitle: Name resolution slow under load\nresource: Deployment/coredns\ntags: [dns, timeouts]",
        "Scale the deployment and enable the node-local cache.",
        "pm/checkout-latency.md",
        "type: postmortem\ntitle: Checkout latency incident",
        "We first suspected coredns timeouts. Coredns was healthy; the timeouts came from the payment API, whose timeouts were set too low.",
    ),
    (
        "karpenter drift",
        "rb/karpenter-drift.md",
        "type: runbook\ntitle: Nodes replaced in a loop\nresource: EC2NodeClass/default\ntags: [karpenter, drift]",
        "Pin the AMI alias in the node class.",
        "howto/cluster-upgrade.md",
        "type: howto\ntitle: Cluster upgrade checklist",
        "Pause karpenter before the upgrade. Karpenter marks nodes as drift candidates when the AMI changes, so let karpenter settle and check karpenter logs for drift.",
    ),
    (
        "harbor-core OOMKilled",
        "rb/harbor-core-oom.md",
        "type: runbook\ntitle: Registry API pods restart after upgrade\nresource: Deployment/harbor-core\ntags: [harbor, OOMKilled]",
        "Raise the memory limit to 2Gi and watch the cache size.",
        "pm/registry-outage.md",
        "type: postmortem\ntitle: Registry outage in February",
        "harbor-core was OOMKilled while harbor-core served a burst of pulls. Restarting harbor-core helped briefly; harbor-core was OOMKilled again within minutes.",
    ),
    (
        "postgres replication lag",
        "rb/postgres-replication-lag.md",
        "type: runbook\ntitle: Postgres replication lag on the replica",
        "Check the WAL sender and the network between zones.",
        "pm/reporting-slow.md",
        "type: postmortem\ntitle: Reporting dashboards slow",
        "Reports read from postgres. The lag grew to minutes: replication lag on postgres made reports stale, and the lag alert fired late.",
    ),
    (
        "vault token expired",
        "rb/vault-token.md",
        "type: runbook\ntitle: Vault token expired for sidecars\ntags: [secrets]",
        "Renew the role binding and restart the pods.",
        "howto/secret-rotation.md",
        "type: howto\ntitle: Rotating application secrets",
        "Each token is issued by vault. When a token expired, vault refused it; rotate the token in vault and check that no token expired silently.",
    ),
    (
        "kafka consumer lag",
        "rb/kafka-consumer-lag.md",
        "type: runbook\ntitle: Kafka consumer lag alert\nresource: Deployment/orders-consumer",
        "Scale the consumer group and check slow partitions.",
        "arch/orders-pipeline.md",
        "type: decision\ntitle: Orders pipeline architecture",
        "Orders flow through kafka. Each consumer reads one partition; consumer lag is expected during replays, and kafka retention bounds the consumer lag we tolerate.",
    ),
    (
        "ingress 502",
        "rb/ingress-502.md",
        "type: runbook\ntitle: Bad gateway errors after a deploy\nresource: Ingress/web\ntags: [ingress, 502]",
        "Check the readiness probe and the upstream keepalive.",
        "report/load-test.md",
        "type: report\ntitle: Load test report",
        "At peak the ingress returned 502 for 2% of calls; 502 rates fell after the ingress workers were raised, then 502 errors came back at 3x load.",
    ),
];

/// Mean reciprocal rank of the relevant entries (0 when not in the top 10).
fn mean_reciprocal_rank(catalog: &KbCatalog, boosts: &FieldBoosts) -> f64 {
    let mut sum = 0.0;
    for (query, relevant, ..) in LABELLED {
        let hits = catalog.search_with(query, 10, boosts).unwrap();
        let rank = hits.iter().position(|hit| hit.entry.path == relevant);
        if let Some(rank) = rank {
            sum += 1.0 / (rank as f64 + 1.0);
        }
        eprintln!(
            "{query:?}: relevant at {:?} with {boosts:?}",
            rank.map(|r| r + 1)
        );
    }
    sum / LABELLED.len() as f64
}

#[test]
fn field_boosts_rank_better_than_plain_bm25_on_labelled_queries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (_, relevant, fields, body, distractor, distractor_fields, distractor_body) in LABELLED {
        write(root, relevant, &entry(fields, body));
        write(
            root,
            distractor,
            &entry(
                distractor_fields,
                &format!("{}{distractor_body} {}", FILLER.repeat(2), FILLER),
            ),
        );
    }
    for n in 0..12 {
        write(
            root,
            &format!("noise/n{n}.md"),
            &entry(&format!("title: Weekly notes {n}"), &FILLER.repeat(3)),
        );
    }
    let catalog = open(root);
    let boosted = mean_reciprocal_rank(&catalog, &FieldBoosts::default());
    let plain = mean_reciprocal_rank(&catalog, &FieldBoosts::uniform());
    eprintln!("MRR with boosts {boosted:.3}, plain BM25 {plain:.3}");
    assert!(
        boosted > plain,
        "boosts {boosted:.3} must beat plain {plain:.3}"
    );
    assert!(
        boosted >= 0.9,
        "boosts rank the relevant entry first almost always: {boosted:.3}"
    );
}
