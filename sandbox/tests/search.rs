//! Lexical and vector search, neighborhoods and context packs over real HTTP.

use crate::common;

use common::Harness;
use lorebase_sandbox::{AuthMode, SandboxOptions};
use serde_json::{Value, json};

fn api(domain: &str, rest: &str) -> String {
    Harness::api(domain, rest)
}

fn refs(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["ref"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn lexical_search_ranks_by_bm25_with_filters() {
    let h = Harness::start(AuthMode::None).await;
    let s = h
        .post(&api("supply", "/search"), json!({"query": "Kavsen alloys"}))
        .await;
    assert_eq!((s.status, s.body["mode"].as_str()), (200, Some("lexical")));
    assert_eq!(s.body["hits"][0]["ref"], "Supplier/S-1001");
    assert!(
        s.body["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("**Kavsen**")
    );
    let scores: Vec<f64> = s.body["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(s.body["truncated_candidates"], false);

    let parts = h
        .post(
            &api("supply", "/search"),
            json!({"query": "steel", "kinds": ["Part"], "limit": 100}),
        )
        .await;
    assert!(!refs(&parts.body, "hits").is_empty());
    assert!(
        refs(&parts.body, "hits")
            .iter()
            .all(|r| r.starts_with("Part/"))
    );
    let traits = h
        .post(
            &api("supply", "/search"),
            json!({"query": "assembly", "traits": ["Located"]}),
        )
        .await;
    assert!(
        refs(&traits.body, "hits")
            .iter()
            .all(|r| r.starts_with("Plant/") || r.starts_with("Supplier/"))
    );
    assert!(refs(&traits.body, "hits").contains(&"Plant/PL-WRO".to_string()));
    let lens = h
        .post(
            &api("supply", "/search"),
            json!({"query": "steel assembly", "lens": "risk_review"}),
        )
        .await;
    assert!(
        refs(&lens.body, "hits")
            .iter()
            .all(|r| r.starts_with("Supplier/") || r.starts_with("PurchaseOrder/"))
    );
    let filtered = h.post(&api("supply", "/search"), json!({"query": "steel", "kinds": ["Part"], "where": {"attr": "unit_price", "op": "lt", "value": 1}, "limit": 100})).await;
    let n = refs(&filtered.body, "hits").len();
    assert!(n >= 1 && n < refs(&parts.body, "hits").len());
    // Sensitive values are not searchable.
    let iban = h
        .post(&api("supply", "/search"), json!({"query": "PL61"}))
        .await;
    assert_eq!(iban.body["hits"], json!([]));

    let bad = h
        .post(&api("supply", "/search"), json!({"kinds": ["Part"]}))
        .await;
    assert_eq!((bad.status, bad.code()), (422, "validation-failed"));
    let bad = h
        .post(
            &api("supply", "/search"),
            json!({"query": "x", "traits": ["Nope"]}),
        )
        .await;
    assert_eq!(bad.status, 404);
    let bad = h
        .post(&api("supply", "/search"), json!({"query": "x", "limit": 0}))
        .await;
    assert_eq!(bad.status, 422);
}

#[tokio::test]
async fn common_words_rank_a_sample_and_say_so() {
    let h = Harness::with(SandboxOptions {
        search_candidate_cap: 20,
        ..Default::default()
    })
    .await;
    let s = h
        .post(&api("retail", "/search"), json!({"query": "leather"}))
        .await;
    assert_eq!(s.body["truncated_candidates"], true);
    assert!(!s.body["hits"].as_array().unwrap().is_empty());
    let rare = h
        .post(
            &api("retail", "/search"),
            json!({"query": "leather runner"}),
        )
        .await;
    assert_eq!(
        rare.body["truncated_candidates"], false,
        "one rare word ranks every match"
    );
    assert_eq!(rare.body["hits"][0]["ref"], "Product/P-0002");
}

#[tokio::test]
async fn vector_search_needs_the_domains_dimension() {
    let h = Harness::start(AuthMode::None).await;
    let emb = h.post("/_sandbox/embed", json!({"text": "Hex bolt M8: zinc coated steel hex bolt for frames", "domain": "supply"})).await;
    assert_eq!(emb.status, 200);
    let v = emb.body["vector"].clone();
    assert_eq!(v.as_array().unwrap().len(), 16);
    let s = h
        .post(
            &api("supply", "/search"),
            json!({"query_vector": v, "limit": 5}),
        )
        .await;
    assert_eq!((s.status, s.body["mode"].as_str()), (200, Some("vector")));
    assert_eq!(s.body["hits"][0]["ref"], "Part/P-100");
    assert!((s.body["hits"][0]["score"].as_f64().unwrap() - 1.0).abs() < 1e-3);
    assert!(
        refs(&s.body, "hits").iter().all(|r| r.starts_with("Part/")),
        "only the embedded Kind"
    );
    let hybrid = h
        .post(
            &api("supply", "/search"),
            json!({"query": "bolt", "query_vector": v}),
        )
        .await;
    assert_eq!(hybrid.body["mode"], "hybrid");
    assert!(refs(&hybrid.body, "hits")[..3].contains(&"Part/P-100".to_string()));
    // A filter few of the nearest match: the list stops short of its size.
    let narrow = h.post(&api("supply", "/search"), json!({"query_vector": v, "limit": 50, "where": {"attr": "lead_time_days", "op": "gt", "value": 85}})).await;
    let found = refs(&narrow.body, "hits").len();
    let all = h.post(&api("supply", "/query"), json!({"query": {"kind": "Part", "where": {"attr": "lead_time_days", "op": "gt", "value": 85}}})).await;
    assert_eq!(
        narrow.body["truncated"],
        all.body["total"].as_u64().unwrap() as usize > found
    );
    for wrong in [json!([1.0, 0.0]), json!(vec![0.5; 32])] {
        let bad = h
            .post(&api("supply", "/search"), json!({"query_vector": wrong}))
            .await;
        assert_eq!((bad.status, bad.code()), (422, "validation-failed"));
        assert_eq!(bad.body["issues"][0]["path"], "query_vector");
    }
}

#[tokio::test]
async fn neighborhoods_walk_within_caps() {
    let h = Harness::start(AuthMode::None).await;
    let n = h
        .post(
            &api("supply", "/neighborhood"),
            json!({"seeds": ["Supplier/S-1001"], "depth": 1, "values": false}),
        )
        .await;
    assert_eq!(n.status, 200);
    assert_eq!(
        n.body["nodes"][0],
        json!({"ref": "Supplier/S-1001", "title": "Kavsen Alloys Sp. z o.o.", "depth": 0})
    );
    let nodes = refs(&n.body, "nodes");
    assert!(
        nodes.contains(&"Part/P-100".to_string())
            && nodes.contains(&"PurchaseOrder/PO-5001".to_string())
    );
    assert!(
        n.body["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x.get("values").is_none())
    );
    assert_eq!(n.body["truncated"], false);
    let edges = n.body["edges"].as_array().unwrap();
    assert!(
        edges.contains(
            &json!({"relation": "supplies", "from": "Supplier/S-1001", "to": "Part/P-100"})
        )
    );
    let only = h.post(&api("supply", "/neighborhood"), json!({"seeds": ["Supplier/S-1001"], "depth": 2, "relations": ["supplies"], "values": true})).await;
    assert!(
        only.body["edges"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["relation"] == "supplies")
    );
    assert!(only.body["nodes"][0]["values"]["risk_score"] == 90);
    let capped = h.post(&api("supply", "/neighborhood"), json!({"seeds": ["Part/P-100"], "depth": 3, "max_nodes": 5, "max_edges": 4, "values": false})).await;
    assert_eq!(capped.body["truncated"], true);
    assert!(capped.body["nodes"].as_array().unwrap().len() <= 5);
    assert!(capped.body["edges"].as_array().unwrap().len() <= 4);
    let bad = h
        .post(
            &api("supply", "/neighborhood"),
            json!({"seeds": ["Supplier/S-0"], "depth": 1, "values": false}),
        )
        .await;
    assert_eq!(bad.status, 404);
    let bad = h
        .post(
            &api("supply", "/neighborhood"),
            json!({"seeds": ["Supplier/S-1001"], "depth": 9, "values": false}),
        )
        .await;
    assert_eq!(bad.status, 422);
}

#[tokio::test]
async fn context_packs_fit_the_budget_and_list_what_was_trimmed() {
    let h = Harness::start(AuthMode::None).await;
    let big = h
        .post(
            &api("supply", "/context"),
            json!({"records": ["Supplier/S-1001"], "depth": 2, "token_budget": 100000}),
        )
        .await;
    assert_eq!(big.status, 200);
    assert_eq!(big.body["seeds"][0]["ref"], "Supplier/S-1001");
    assert!(!big.body["neighbors"].as_array().unwrap().is_empty());
    assert!(
        big.body["schema"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["name"] == "Part")
    );
    assert_eq!(
        big.body["recent_changes"][0]["message"],
        "Raise the risk of S-1001"
    );
    assert_eq!(big.body["lineage"].as_array().unwrap().len(), 3);
    assert_eq!(big.body["trimmed"], json!([]));
    let small = h
        .post(
            &api("supply", "/context"),
            json!({"records": ["Supplier/S-1001"], "depth": 2, "token_budget": 300}),
        )
        .await;
    assert!(
        small.body["token_estimate"].as_u64().unwrap() <= 300,
        "{}",
        small.body["token_estimate"]
    );
    let trimmed: Vec<&str> = small.body["trimmed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["section"].as_str().unwrap())
        .collect();
    assert!(
        trimmed.contains(&"lineage") && trimmed.contains(&"neighbors"),
        "{trimmed:?}"
    );
    assert_eq!(
        small.body["seeds"][0]["ref"], "Supplier/S-1001",
        "seeds stay"
    );
    let q = h
        .post(
            &api("supply", "/context"),
            json!({"records": [], "question": "Kavsen alloys", "lens": "risk_review"}),
        )
        .await;
    assert_eq!(q.body["seeds"][0]["ref"], "Supplier/S-1001");
    assert_eq!(q.body["question"], "Kavsen alloys");
    assert_eq!(q.body["token_budget"], 1500, "the lens's budget");
    assert!(
        refs(&q.body, "neighbors")
            .iter()
            .all(|r| r.starts_with("Supplier/") || r.starts_with("PurchaseOrder/"))
    );
    let bad = h
        .post(&api("supply", "/context"), json!({"records": []}))
        .await;
    assert_eq!(bad.status, 422);
    let bad = h
        .post(
            &api("supply", "/context"),
            json!({"records": ["Supplier/S-1001"], "lens": "nope"}),
        )
        .await;
    assert_eq!(bad.status, 404);
}
