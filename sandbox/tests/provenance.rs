//! The documented examples (history, lineage, resolve), explain, Revisions
//! (content addresses, `at`, tags, prefixes), branches, the log and diffs.
//!
//! Past 500 lines on purpose: each test reads the sample Domain's one history
//! (the same Revisions, in order), so they stay one file to be read together.

use crate::common;

use common::Harness;
use lorebase_sandbox::AuthMode;
use serde_json::{Value, json};

fn api(domain: &str, rest: &str) -> String {
    Harness::api(domain, rest)
}

fn is_revision(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[tokio::test]
async fn s1001_history_and_lineage_match_the_documented_examples() {
    let h = Harness::start(AuthMode::None).await;
    let hist = h
        .get(&api(
            "supply",
            "/kinds/Supplier/records/S-1001/history?values=true&limit=2",
        ))
        .await;
    assert_eq!(hist.status, 200);
    assert_eq!(hist.body["total"], 2);
    let e = hist.body["entries"].as_array().unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!(
        (
            &e[0]["time"],
            &e[0]["author"],
            &e[0]["origin_type"],
            &e[0]["operation"],
            &e[0]["change"],
            &e[0]["message"]
        ),
        (
            &json!("2026-10-01T08:00:04Z"),
            &json!("usr_editor"),
            &json!("operation"),
            &json!("update_supplier"),
            &json!("updated"),
            &json!("Raise the risk of S-1001")
        )
    );
    assert_eq!(
        e[0]["changes"],
        json!([{"attribute": "risk_score", "before": 32, "after": 90}])
    );
    assert_eq!(
        (
            &e[1]["time"],
            &e[1]["author"],
            &e[1]["origin_type"],
            &e[1]["change"],
            &e[1]["message"]
        ),
        (
            &json!("2026-10-01T08:00:03Z"),
            &json!("usr_loader"),
            &json!("import"),
            &json!("created"),
            &json!("Import the supply example data")
        )
    );
    assert_eq!(
        e[1]["changes"],
        json!([
            {"attribute": "supplier_code", "before": null, "after": "S-1001"},
            {"attribute": "legal_name", "before": null, "after": "Kavsen Alloys Sp. z o.o."},
            {"attribute": "risk_score", "before": null, "after": 32}
        ])
    );
    assert_eq!(
        hist.body["revision"], e[0]["revision"],
        "the head is the update_supplier Revision"
    );
    assert!(is_revision(&e[0]["revision"]) && is_revision(&e[1]["revision"]));
    // without values: the attributes only
    let bare = h
        .get(&api("supply", "/kinds/Supplier/records/S-1001/history"))
        .await;
    assert_eq!(
        bare.body["entries"][0]["changes"],
        json!([{"attribute": "risk_score"}])
    );
    // pages
    let first = h
        .get(&api(
            "supply",
            "/kinds/Supplier/records/S-1001/history?limit=1",
        ))
        .await;
    let cursor = first.body["next_cursor"].as_str().unwrap();
    let second = h
        .get(&api(
            "supply",
            &format!("/kinds/Supplier/records/S-1001/history?limit=1&cursor={cursor}"),
        ))
        .await;
    assert_eq!(second.body["entries"][0]["revision"], e[1]["revision"]);
    assert!(second.body.get("next_cursor").is_none());

    let lin = h
        .get(&api("supply", "/kinds/Supplier/records/S-1001/lineage"))
        .await;
    assert_eq!(lin.body["changes"], 2);
    assert_eq!(lin.body["created"]["actor"], "usr_loader");
    assert_eq!(lin.body["created"]["revision"], e[1]["revision"]);
    let attrs: Vec<(&str, &Value, &str)> = lin.body["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["attribute"].as_str().unwrap(),
                &a["value"],
                a["origin"]["origin_type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(attrs.len(), 3);
    assert!(attrs.contains(&("risk_score", &json!(90), "operation")));
    assert!(attrs.contains(&("legal_name", &json!("Kavsen Alloys Sp. z o.o."), "import")));
    let risk = lin.body["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["attribute"] == "risk_score")
        .unwrap();
    assert_eq!(risk["origin"]["operation"], "update_supplier");
    assert_eq!(risk["origin"]["actor"], "usr_editor");
    assert_eq!(
        lin.body["sources"],
        json!([]),
        "S-1001's values carry no Source"
    );
    assert_eq!(lin.body["proposals"], json!([]));

    // at an earlier Revision (full id, 8-digit prefix, tag): risk 32, one change
    for at in [
        e[1]["revision"].as_str().unwrap().to_string(),
        e[1]["revision"].as_str().unwrap()[..8].to_string(),
        "import".to_string(),
    ] {
        let old = h
            .get(&api(
                "supply",
                &format!("/kinds/Supplier/records/S-1001?at={at}"),
            ))
            .await;
        assert_eq!(old.body["values"]["risk_score"], 32, "at={at}");
        assert_eq!(old.body["revision"], e[1]["revision"]);
        let old_lin = h
            .get(&api(
                "supply",
                &format!("/kinds/Supplier/records/S-1001/lineage?at={at}"),
            ))
            .await;
        assert_eq!(old_lin.body["changes"], 1);
    }
    let short = h
        .get(&api("supply", "/kinds/Supplier/records/S-1001?at=abc"))
        .await;
    assert_eq!(short.status, 422);
    let unknown = h
        .get(&api(
            "supply",
            "/kinds/Supplier/records/S-1001?at=deadbeefdeadbeef",
        ))
        .await;
    assert_eq!((unknown.status, unknown.code()), (404, "not-found"));
}

#[tokio::test]
async fn revisions_are_content_addressed_and_stable() {
    let a = Harness::start(AuthMode::None).await;
    let b = Harness::start(AuthMode::ApiKey).await;
    let ha = a.get(&api("supply", "/branches")).await;
    let hb = b
        .as_principal("agt_reader")
        .get(&api("supply", "/branches"))
        .await;
    assert_eq!(
        ha.body["branches"][0]["head"], hb.body["branches"][0]["head"],
        "same data, same ids"
    );
    assert_eq!(ha.body["branches"][0]["name"], "main");
    assert_eq!(ha.body["branches"][0]["default"], true);
    assert_eq!(ha.body["branches"][0]["protected"], true);
    let dev = ha.body["branches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "dev")
        .unwrap();
    assert_eq!(dev["protected"], false);
    let page = a.get(&api("supply", "/branches?limit=1")).await;
    assert_eq!(page.body["branches"].as_array().unwrap().len(), 1);
    assert!(page.body["next_cursor"].is_string());
}

#[tokio::test]
async fn explain_shows_every_origin_with_its_evidence() {
    let h = Harness::start(AuthMode::None).await;
    let ex = h
        .get(&api("retail", "/kinds/Product/records/P-0001/explain"))
        .await;
    assert_eq!(ex.status, 200);
    let material = ex.body["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["attribute"] == "material")
        .unwrap();
    assert_eq!(material["origin"]["origin_type"], "extraction");
    assert_eq!(
        material["origin"]["evidence"],
        json!({"document_id": "doc_catalog_2026", "start": 1180, "end": 1203, "model": "lorebase-extract-1", "quote": "tomaia in pelle italiana"})
    );
    assert!(ex.body["links"].as_array().unwrap().len() >= 2);
    let price = h
        .get(&api(
            "retail",
            "/kinds/Product/records/P-0002/explain?attributes=price",
        ))
        .await;
    assert_eq!(price.body["attributes"].as_array().unwrap().len(), 1);
    assert_eq!(
        price.body["attributes"][0]["origin"]["origin_type"],
        "proposal"
    );
    assert_eq!(
        price.body["attributes"][0]["origin"]["proposal"]["id"],
        "prop_7c1e2a40b1d3"
    );
    assert!(price.body.get("links").is_none());
    let whole = h
        .get(&api("retail", "/kinds/Product/records/P-0002/explain"))
        .await;
    assert_eq!(whole.body["proposals"][0]["status"], "merged");
    let lin = h
        .get(&api("retail", "/kinds/Product/records/P-0002/lineage"))
        .await;
    assert_eq!(lin.body["proposals"][0]["id"], "prop_7c1e2a40b1d3");
    assert_eq!(lin.body["sources"][0]["name"], "catalog_feed");
    let synced = h
        .get(&api("retail", "/kinds/Product/records/P-0003/lineage"))
        .await;
    let stock = synced.body["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["attribute"] == "in_stock")
        .unwrap();
    assert_eq!(
        (
            stock["value"].clone(),
            stock["origin"]["origin_type"].clone(),
            stock["origin"]["source"].clone()
        ),
        (json!(false), json!("source"), json!("catalog_feed"))
    );
    let bad = h
        .get(&api(
            "retail",
            "/kinds/Product/records/P-0002/explain?attributes=nope",
        ))
        .await;
    assert_eq!(bad.status, 422);
}

#[tokio::test]
async fn the_log_and_diffs_follow_the_branch() {
    let h = Harness::start(AuthMode::None).await;
    let log = h.get(&api("retail", "/branches/main/log")).await;
    let entries = log.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4);
    assert_eq!(entries[0]["origin_type"], "source");
    assert_eq!(entries[3]["origin_type"], "import");
    assert!(entries[3].get("parent").is_none());
    assert_eq!(entries[0]["parent"], entries[1]["revision"]);
    assert!(entries[3]["counts"]["created"].as_u64().unwrap() > 400);
    let only = h
        .get(&api("retail", "/branches/main/log?origin_type=extraction"))
        .await;
    assert_eq!(only.body["entries"].as_array().unwrap().len(), 1);
    let by = h
        .get(&api("retail", "/branches/main/log?author=usr_steward"))
        .await;
    assert_eq!(by.body["entries"][0]["origin_type"], "proposal");
    let paged = h.get(&api("retail", "/branches/main/log?limit=3")).await;
    let c = paged.body["next_cursor"].as_str().unwrap();
    let rest = h
        .get(&api(
            "retail",
            &format!("/branches/main/log?limit=3&cursor={c}"),
        ))
        .await;
    assert_eq!(rest.body["entries"][0]["revision"], entries[3]["revision"]);
    let bad = h
        .get(&api("retail", "/branches/main/log?origin_type=magic"))
        .await;
    assert_eq!(bad.status, 422);
    let none = h.get(&api("retail", "/branches/nope/log")).await;
    assert_eq!(none.status, 404);

    let (from, to) = (
        entries[3]["revision"].as_str().unwrap(),
        entries[0]["revision"].as_str().unwrap(),
    );
    let d = h
        .get(&api(
            "retail",
            &format!("/diff?from={}&to={}", &from[..10], to),
        ))
        .await;
    assert_eq!(d.status, 200);
    assert_eq!(d.body["from"], from);
    let els = d.body["elements"].as_array().unwrap();
    assert_eq!(
        els.len(),
        3,
        "three Products changed after the import: {els:?}"
    );
    assert!(els.iter().all(|e| e["op"] == "~"));
    let p2 = els.iter().find(|e| e["ref"] == "Product/P-0002").unwrap();
    assert_eq!(
        p2["changes"],
        json!([{"attribute": "price", "before": 99.9, "after": 89.9}])
    );
    assert_eq!(
        d.body["counts"],
        json!([{"name": "Product", "scope": "kind", "created": 0, "updated": 3, "deleted": 0}])
    );
    let tags = h
        .get(&api(
            "retail",
            "/diff?from=import&to=catalog-v1&kinds=Store",
        ))
        .await;
    assert_eq!(tags.body["elements"], json!([]));
    let missing = h.get(&api("retail", "/diff?from=import")).await;
    assert_eq!(missing.status, 422);
    assert_eq!(missing.body["issues"][0]["path"], "to");
}

#[tokio::test]
async fn resolve_grounds_red_shoes_per_brand() {
    let h = Harness::start(AuthMode::None).await;
    for text in ["red shoes per brand", "How many red shoes per brand?"] {
        let r = h
            .post(
                &api("retail", "/resolve"),
                json!({"text": text, "kinds": ["Product"]}),
            )
            .await;
        assert_eq!(r.status, 200);
        let c = r.body["candidates"].as_array().unwrap();
        assert_eq!(c.len(), 3, "{text}: {c:?}");
        assert_eq!(c[0]["type"], "value");
        assert_eq!(
            (&c[0]["kind"], &c[0]["attribute"], &c[0]["attribute_type"]),
            (&json!("Product"), &json!("color"), &json!("string"))
        );
        assert_eq!(c[0]["values"], json!(["Rosso", "red"]));
        assert_eq!(
            (
                &c[0]["level"],
                &c[0]["score"],
                &c[0]["matched"],
                &c[0]["record_count"]
            ),
            (&json!("exact"), &json!(1.0), &json!(["red"]), &json!(120))
        );
        assert_eq!(
            c[0]["where"],
            json!({"attr": "color", "op": "in", "value": ["Rosso", "red"]})
        );
        assert_eq!(c[1]["values"], json!(["Calzature"]));
        assert_eq!(
            (
                &c[1]["level"],
                &c[1]["score"],
                &c[1]["matched"],
                &c[1]["record_count"]
            ),
            (
                &json!("synonym"),
                &json!(0.95),
                &json!(["shoes"]),
                &json!(100)
            )
        );
        assert_eq!(
            c[1]["where"],
            json!({"attr": "category", "op": "eq", "value": "Calzature"})
        );
        assert_eq!(
            (
                &c[2]["type"],
                &c[2]["attribute"],
                &c[2]["level"],
                &c[2]["score"]
            ),
            (
                &json!("attribute"),
                &json!("brand"),
                &json!("exact"),
                &json!(1.0)
            )
        );
        assert!(c[2].get("where").is_none());
        let coverage: Vec<&str> = r.body["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["message"].as_str().unwrap())
            .collect();
        assert_eq!(
            coverage,
            ["color missing on 25% of Product: a filter on color excludes them"]
        );
        assert_eq!(
            r.body["skipped_levels"],
            json!([{"level": "embedding", "reason": "no query_vector"}])
        );
        let expected: &[&str] = if text.starts_with("How") {
            &["how", "many", "per"]
        } else {
            &["per"]
        };
        assert_eq!(r.body["unmatched"], json!(expected));
    }
    // Unknown words are unmatched and reported; typos resolve by trigrams.
    let r = h.post(&api("retail", "/resolve"), json!({"text": "zorblax calzatur", "kinds": ["Product"], "levels": ["exact", "trigram"]})).await;
    assert_eq!(r.body["unmatched"], json!(["zorblax"]));
    assert_eq!(r.body["coverage"][0]["signal"], "unknown_phrase");
    assert_eq!(r.body["coverage"][0]["phrase"], "zorblax");
    assert!(
        r.body["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["level"] == "trigram")
    );
    assert!(
        r.body["skipped_levels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["level"] == "synonym" && s["reason"] == "not requested")
    );
    // Kinds and multi-word values, across the Domain.
    let r = h
        .post(
            &api("supply", "/resolve"),
            json!({"text": "vendors in poland"}),
        )
        .await;
    let c = r.body["candidates"].as_array().unwrap();
    assert!(
        c.iter()
            .any(|x| x["type"] == "kind" && x["kind"] == "Supplier" && x["level"] == "synonym")
    );
    assert!(c.iter().any(|x| x["type"] == "value"
        && x["attribute"] == "country"
        && x["values"] == json!(["PL"])));
    let r = h
        .post(
            &api("supply", "/resolve"),
            json!({"text": "Kavsen Alloys Sp. z o.o."}),
        )
        .await;
    assert_eq!(
        r.body["candidates"][0]["where"],
        json!({"attr": "legal_name", "op": "eq", "value": "Kavsen Alloys Sp. z o.o."})
    );
    assert_eq!(r.body["unmatched"], json!([]));
    // Vectors: the right dimension adds the embedding level; another is refused.
    let v: Vec<f32> = (0..16).map(|i| if i == 3 { 1.0 } else { 0.0 }).collect();
    let ok = h
        .post(
            &api("retail", "/resolve"),
            json!({"text": "something", "query_vector": v}),
        )
        .await;
    assert_eq!(ok.status, 200);
    assert!(
        ok.body["skipped_levels"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["level"] != "embedding")
    );
    let bad = h
        .post(
            &api("retail", "/resolve"),
            json!({"text": "x", "query_vector": [1.0, 2.0]}),
        )
        .await;
    assert_eq!(
        (bad.status, bad.body["issues"][0]["path"].as_str()),
        (422, Some("query_vector"))
    );
    let empty = h
        .post(&api("retail", "/resolve"), json!({"text": "  "}))
        .await;
    assert_eq!(empty.status, 422);
    let kinds = h
        .post(
            &api("retail", "/resolve"),
            json!({"text": "x", "kinds": ["Nope"]}),
        )
        .await;
    assert_eq!(kinds.status, 404);
}
