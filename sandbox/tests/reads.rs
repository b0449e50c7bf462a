//! Schema, Records, masking, auth and the query DSL over real HTTP.

use crate::common;

use common::Harness;
use lorebase_sandbox::AuthMode;
use serde_json::json;

fn api(domain: &str, rest: &str) -> String {
    Harness::api(domain, rest)
}

#[tokio::test]
async fn schema_lists_kinds_relations_operations_lenses_sources_and_search() {
    let h = Harness::start(AuthMode::None).await;
    let s = h.get(&api("supply", "/schema")).await;
    assert_eq!(s.status, 200);
    let kinds: Vec<&str> = s.body["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["Supplier", "Part", "Plant", "PurchaseOrder"]);
    let supplier = &s.body["kinds"][0];
    assert_eq!(supplier["key"], "supplier_code");
    assert!(
        supplier["operations"]
            .as_array()
            .unwrap()
            .contains(&json!("update_supplier"))
    );
    assert!(supplier["record_count"].as_u64().unwrap() >= 100);
    let bank = supplier["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "bank_account")
        .unwrap();
    assert_eq!(bank["sensitive"], true);
    assert_eq!(s.body["operations"][0]["name"], "flag_supplier_risk");
    assert_eq!(s.body["operations"][0]["review_policy"], "review");
    assert_eq!(
        s.body["search"]["modes"],
        json!(["lexical", "vector", "hybrid"])
    );
    assert_eq!(s.body["search"]["embedding"]["dimension"], 16);
    let stale: Vec<&str> = s.body["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["stale"] == true)
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(stale, ["plant_registry"]);
    let lens = s.body["lenses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "sourcing")
        .unwrap();
    assert_eq!(
        lens["kinds"],
        json!(["Part", "Plant", "Supplier"]),
        "Traits resolve to their Kinds"
    );
    // summary leaves synonyms out; full has them
    assert!(supplier.get("synonyms").is_none());
    let full = h
        .get(&api("supply", "/schema?detail=full&kinds=Supplier"))
        .await;
    assert_eq!(full.body["kinds"].as_array().unwrap().len(), 1);
    assert!(
        full.body["kinds"][0]["synonyms"]
            .as_array()
            .unwrap()
            .contains(&json!("vendor"))
    );
    let bad = h.get(&api("supply", "/schema?kinds=Nope")).await;
    assert_eq!((bad.status, bad.code()), (404, "not-found"));
    let bad = h.get(&api("supply", "/schema?detail=everything")).await;
    assert_eq!((bad.status, bad.code()), (422, "validation-failed"));
    assert_eq!(bad.body["issues"][0]["path"], "detail");
}

#[tokio::test]
async fn records_have_values_link_counts_and_links() {
    let h = Harness::start(AuthMode::None).await;
    let r = h
        .get(&api("supply", "/kinds/Supplier/records/S-1001?links=true"))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["title"], "Kavsen Alloys Sp. z o.o.");
    assert_eq!(
        r.body["values"],
        json!({"supplier_code": "S-1001", "legal_name": "Kavsen Alloys Sp. z o.o.", "risk_score": 90})
    );
    assert_eq!(r.body["link_counts"]["supplies"], 2);
    assert!(r.body["link_counts"]["ordered_from"].as_u64().unwrap() >= 1);
    let links = r.body["links"].as_array().unwrap();
    assert!(
        links.contains(
            &json!({"relation": "supplies", "from": "Supplier/S-1001", "to": "Part/P-100"})
        )
    );
    let missing = h.get(&api("supply", "/kinds/Supplier/records/S-9")).await;
    assert_eq!((missing.status, missing.code()), (404, "not-found"));
    let no_kind = h.get(&api("supply", "/kinds/Nope/records/x")).await;
    assert_eq!(no_kind.status, 404);
    let no_domain = h.get(&api("nowhere", "/schema")).await;
    assert_eq!((no_domain.status, no_domain.code()), (404, "not-found"));
    let unknown_param = h
        .get(&api("supply", "/kinds/Supplier/records/S-1001?color=red"))
        .await;
    assert_eq!(
        (unknown_param.status, unknown_param.code()),
        (422, "validation-failed")
    );
    assert_eq!(unknown_param.body["issues"][0]["path"], "color");
    let bad_bool = h
        .get(&api("supply", "/kinds/Supplier/records/S-1001?links=maybe"))
        .await;
    assert_eq!(bad_bool.status, 422);
}

#[tokio::test]
async fn api_keys_authenticate_and_sensitive_values_are_masked() {
    let h = Harness::start(AuthMode::ApiKey).await;
    let path = api("supply", "/kinds/Supplier/records/S-1002");
    let none = h.get(&path).await;
    assert_eq!((none.status, none.code()), (401, "unauthorized"));
    assert!(none.headers.get("www-authenticate").is_some());
    let wrong = h.get_with_key(&path, Some("lbk_0000000000_00000000")).await;
    assert_eq!((wrong.status, wrong.code()), (401, "unauthorized"));
    assert!(
        !wrong.body.to_string().contains("lbk_0000000000"),
        "the key is never echoed"
    );

    let reader = h.as_principal("agt_reader");
    let r = reader.get(&path).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["values"]["bank_account"], "***");
    assert_eq!(r.body["masked"], json!(["bank_account"]));
    let steward = h.as_principal("usr_steward");
    let r = steward.get(&path).await;
    assert!(
        r.body["values"]["bank_account"]
            .as_str()
            .unwrap()
            .starts_with("PL61")
    );
    assert!(r.body.get("masked").is_none());

    // Filtering on a masked attribute would reveal it.
    let q = reader
        .post(&api("supply", "/query"), json!({"query": {"kind": "Supplier", "where": {"attr": "bank_account", "op": "contains", "value": "PL"}}}))
        .await;
    assert_eq!((q.status, q.code()), (403, "forbidden"));
    // Reads need no grant; writes need the Operation's grant.
    let x = reader
        .post(
            &api("supply", "/operations/update_supplier/execute"),
            json!({"parameters": {"supplier_code": "S-1001", "risk_score": 1}, "dry_run": true}),
        )
        .await;
    assert_eq!((x.status, x.code()), (403, "forbidden"));
    // Keys are lbk_<10>_<8> and repeat with the same seed.
    for k in h.sandbox.keys() {
        let parts: Vec<&str> = k.key.split('_').collect();
        assert_eq!((parts[0], parts[1].len(), parts[2].len()), ("lbk", 10, 8));
    }
    let again = Harness::start(AuthMode::ApiKey).await;
    assert_eq!(again.sandbox.keys(), h.sandbox.keys());
}

#[tokio::test]
async fn the_query_dsl_filters_includes_aggregates_and_pages() {
    let h = Harness::start(AuthMode::None).await;
    let q = |query: serde_json::Value| h.post(&api("retail", "/query"), json!({"query": query}));
    let all = q(json!({"kind": "Product", "limit": 1})).await;
    assert_eq!(all.body["total"], 400);
    let red = q(json!({"kind": "Product", "where": {"attr": "color", "op": "in", "value": ["Rosso", "red"]}, "limit": 1000})).await;
    assert_eq!(red.body["total"], 120);
    let shoes = q(
        json!({"kind": "Product", "where": {"attr": "category", "op": "eq", "value": "Calzature"}}),
    )
    .await;
    assert_eq!(shoes.body["total"], 100);
    let no_color =
        q(json!({"kind": "Product", "where": {"attr": "color", "op": "exists", "value": false}}))
            .await;
    assert_eq!(no_color.body["total"], 100);
    let cases = [
        (json!({"not": {"attr": "color", "op": "exists"}}), 100),
        (
            json!({"or": [{"attr": "color", "op": "eq", "value": "Rosso"}, {"attr": "color", "op": "eq", "value": "red"}]}),
            120,
        ),
        (
            json!({"and": [{"attr": "color", "op": "ne", "value": "Rosso"}, {"attr": "color", "op": "exists"}]}),
            230,
        ),
        (
            json!({"attr": "name", "op": "contains", "value": "RUNNER"}),
            1,
        ),
        (
            json!({"attr": "tags", "op": "contains", "value": "bestseller"}),
            1,
        ),
    ];
    for (w, n) in cases {
        let r = q(json!({"kind": "Product", "where": w, "limit": 1})).await;
        assert_eq!(r.body["total"], n, "{w}");
    }
    let cheap = q(json!({"kind": "Product", "where": {"and": [{"attr": "price", "op": "gte", "value": 10}, {"attr": "price", "op": "lt", "value": 20}]}, "order_by": "-price", "limit": 1000})).await;
    let prices: Vec<f64> = cheap.body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["values"]["price"].as_f64().unwrap())
        .collect();
    assert!(!prices.is_empty() && prices.iter().all(|p| (10.0..20.0).contains(p)));
    assert!(prices.windows(2).all(|w| w[0] >= w[1]), "sorted descending");

    // The README's walk-through: red shoes per brand.
    let walk = q(json!({"kind": "Product", "where": {"and": [{"attr": "color", "op": "in", "value": ["Rosso", "red"]}, {"attr": "category", "op": "eq", "value": "Calzature"}]}, "aggregate": {"group_by": "brand"}})).await;
    let groups = walk.body["aggregate"]["groups"].as_array().unwrap();
    let counted: u64 = groups.iter().map(|g| g["count"].as_u64().unwrap()).sum();
    assert_eq!(counted, walk.body["total"].as_u64().unwrap());
    assert!(
        groups
            .windows(2)
            .all(|w| w[0]["count"].as_u64() >= w[1]["count"].as_u64())
    );
    let lines: Vec<&str> = walk.body["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        ["color missing on 25% of Product: a filter on color excludes them"]
    );
    let quiet = q(json!({"kind": "Product", "where": {"attr": "color", "op": "eq", "value": "red"}, "coverage": false})).await;
    assert_eq!(quiet.body["coverage"], json!([]));
    // Stale Sources show up as coverage.
    let stores = q(json!({"kind": "Store"})).await;
    assert_eq!(stores.body["coverage"][0]["signal"], "stale_source");

    // select and include
    let inc = q(json!({"kind": "Product", "where": {"attr": "sku", "op": "eq", "value": "P-0001"}, "select": ["name"], "include": [{"relation": "stocked_at", "select": ["city"]}, {"relation": "features"}]})).await;
    let row = &inc.body["rows"][0];
    assert_eq!(row["values"], json!({"name": "Scarpa Rossa Milano"}));
    assert_eq!(
        row["included"]["stocked_at"][0]["values"],
        json!({"city": "Milano"})
    );
    let campaigns: Vec<&str> = row["included"]["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["ref"].as_str().unwrap())
        .collect();
    assert!(campaigns.contains(&"Campaign/CMP-RED"), "{campaigns:?}");

    // cursors walk every row once
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut body = json!({"query": {"kind": "Product", "where": {"attr": "color", "op": "eq", "value": "red"}, "limit": 20}});
        if let Some(c) = &cursor {
            body["cursor"] = json!(c);
        }
        let page = h.post(&api("retail", "/query"), body).await;
        seen.extend(
            page.body["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["ref"].as_str().unwrap().to_string()),
        );
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 50);
    seen.dedup();
    assert_eq!(seen.len(), 50);

    // wrong queries: one issue per path
    let bad = q(json!({"kind": "Product", "where": {"and": [{"attr": "nope", "op": "eq", "value": 1}, {"attr": "color", "op": "in", "value": "red"}]}})).await;
    assert_eq!((bad.status, bad.code()), (422, "validation-failed"));
    let paths: Vec<&str> = bad.body["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["query.where.and[0].attr", "query.where.and[1].value"]
    );
    let unknown_field = h
        .post(
            &api("retail", "/query"),
            json!({"query": {"kind": "Product", "wher": {}}}),
        )
        .await;
    assert_eq!(unknown_field.status, 422);
    let junk = h
        .post(
            &api("retail", "/query"),
            json!({"query": {"kind": "Product"}, "cursor": "zz"}),
        )
        .await;
    assert_eq!(
        (junk.status, junk.body["issues"][0]["path"].as_str()),
        (422, Some("cursor"))
    );
}
