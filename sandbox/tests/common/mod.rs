//! Shared by the sandbox's tests: a sandbox on an ephemeral port, an HTTP
//! client, and the contract check every answer goes through (the answer's
//! path, method and status must be documented in `sandbox/openapi.yaml`, and
//! its body must validate against the documented schema).

#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use lorebase_sandbox::{AuthMode, Sandbox, SandboxOptions};
use serde_json::{Value, json};

/// The OpenAPI document and one validator per response schema.
pub(crate) struct Contract {
    doc: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
    /// (method, template, status) seen so far.
    pub seen: Mutex<BTreeSet<(String, String, String)>>,
}

/// The contract, loaded once per test binary.
pub(crate) fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml"))
            .expect("sandbox/openapi.yaml is readable");
        let doc: Value = serde_norway::from_str(&text).expect("openapi.yaml is YAML");
        Contract {
            doc,
            validators: Mutex::new(HashMap::new()),
            seen: Mutex::new(BTreeSet::new()),
        }
    })
}

impl Contract {
    pub(crate) fn doc(&self) -> &Value {
        &self.doc
    }

    /// The path template a concrete path matches (`{branch}` may span `/`).
    pub(crate) fn template(&self, path: &str) -> Option<String> {
        let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        for template in self.doc["paths"].as_object()?.keys() {
            let t: Vec<&str> = template.trim_start_matches('/').split('/').collect();
            let matches = if let Some(bi) = t.iter().position(|s| *s == "{branch}") {
                let tail = t.len() - bi - 1;
                segs.len() > bi + tail
                    && seg_match(&t[..bi], &segs[..bi])
                    && seg_match(&t[bi + 1..], &segs[segs.len() - tail..])
            } else {
                t.len() == segs.len() && seg_match(&t, &segs)
            };
            if matches {
                return Some(template.clone());
            }
        }
        None
    }

    fn resolve<'a>(&'a self, v: &'a Value) -> &'a Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let pointer = r.trim_start_matches('#');
                self.doc
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling $ref {r}"))
            }
            None => v,
        }
    }

    fn validator(&self, schema_ref: &str) -> Arc<jsonschema::Validator> {
        let mut cache = self.validators.lock().unwrap();
        cache
            .entry(schema_ref.to_string())
            .or_insert_with(|| {
                let root = json!({
                    "$ref": schema_ref,
                    "components": self.doc["components"],
                });
                Arc::new(
                    jsonschema::draft202012::options()
                        .build(&root)
                        .unwrap_or_else(|e| panic!("schema {schema_ref} does not compile: {e}")),
                )
            })
            .clone()
    }

    /// Holds one answer to the document; panics with every violation.
    pub(crate) fn check(
        &self,
        method: &str,
        path: &str,
        status: u16,
        content_type: &str,
        retry_after: Option<&str>,
        body: &Value,
    ) {
        let template = self
            .template(path)
            .unwrap_or_else(|| panic!("{path} is not in openapi.yaml"));
        let op = &self.doc["paths"][&template][method.to_lowercase()];
        assert!(op.is_object(), "{method} {template} is not in openapi.yaml");
        let response = op["responses"].get(status.to_string()).unwrap_or_else(|| {
            panic!("{method} {template} does not document status {status}: {body}")
        });
        let response = self.resolve(response);
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let schema = &response["content"][media]["schema"];
        let schema_ref = schema["$ref"].as_str().unwrap_or_else(|| {
            panic!("{method} {template} {status} has no {media} schema ({content_type})")
        });
        if response["headers"].get("Retry-After").is_some() && body.get("retry_after").is_some() {
            assert!(
                retry_after.is_some(),
                "{method} {template} {status}: retry_after without the Retry-After header"
            );
        }
        let validator = self.validator(schema_ref);
        let errors: Vec<String> = validator
            .iter_errors(body)
            .map(|e| format!("  at {}: {}", e.instance_path(), e))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {path} {status} breaks {schema_ref}:\n{}\nbody: {body}",
            errors.join("\n")
        );
        self.seen
            .lock()
            .unwrap()
            .insert((method.to_uppercase(), template, status.to_string()));
    }
}

fn seg_match(t: &[&str], s: &[&str]) -> bool {
    t.len() == s.len()
        && t.iter()
            .zip(s)
            .all(|(t, s)| (t.starts_with('{') && !s.is_empty()) || t == s)
}

/// A sandbox and a client that checks every answer against the contract.
pub(crate) struct Harness {
    pub sandbox: Arc<Sandbox>,
    pub http: reqwest::Client,
    pub key: Option<String>,
}

/// An answer: status, headers and JSON body (null when empty).
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The problem code of a failed call.
    pub(crate) fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
}

impl Harness {
    pub(crate) async fn start(auth: AuthMode) -> Self {
        Self::with(SandboxOptions {
            auth,
            seed: Some(42),
            ..Default::default()
        })
        .await
    }

    pub(crate) async fn with(options: SandboxOptions) -> Self {
        let sandbox = Sandbox::start(options).await.expect("the sandbox starts");
        Self {
            sandbox: Arc::new(sandbox),
            http: reqwest::Client::new(),
            key: None,
        }
    }

    /// The same harness calling with one principal's key.
    pub(crate) fn as_principal(&self, principal: &str) -> Self {
        let key = self
            .sandbox
            .key_of(principal)
            .unwrap_or_else(|| panic!("no key for {principal}"));
        Self {
            sandbox: self.sandbox.clone(),
            http: self.http.clone(),
            key: Some(key.to_string()),
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.sandbox.url())
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        key: Option<&str>,
    ) -> Answer {
        let mut req = self.http.request(method.clone(), self.url(path));
        if let Some(k) = key.or(self.key.as_deref()) {
            req = req.bearer_auth(k);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send().await.expect("the sandbox answers");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("a body");
        let body: Value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
        };
        if path.starts_with("/api/") {
            let ct = headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let ra = headers.get("retry-after").and_then(|v| v.to_str().ok());
            let plain = path.split('?').next().unwrap_or(path);
            contract().check(method.as_str(), plain, status, ct, ra, &body);
        }
        Answer {
            status,
            headers,
            body,
        }
    }

    pub(crate) fn get<'a>(
        &'a self,
        path: &str,
    ) -> impl std::future::Future<Output = Answer> + use<'a> {
        let path = path.to_string();
        async move { self.send(reqwest::Method::GET, &path, None, None).await }
    }

    pub(crate) fn post<'a>(
        &'a self,
        path: &str,
        body: Value,
    ) -> impl std::future::Future<Output = Answer> + use<'a> {
        let path = path.to_string();
        async move {
            self.send(reqwest::Method::POST, &path, Some(&body), None)
                .await
        }
    }

    pub(crate) async fn get_with_key(&self, path: &str, key: Option<&str>) -> Answer {
        self.send(reqwest::Method::GET, path, None, key).await
    }

    /// `/api/v1/domains/{domain}` + rest.
    pub(crate) fn api(domain: &str, rest: &str) -> String {
        format!("/api/v1/domains/{domain}{rest}")
    }
}
