//! Settings: the example file, the layers, errors naming key and source, and
//! secrets. No test touches the process environment: each passes its own map.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use herald_core::config::{
    ConfigError, KeeperToken, Overrides, SettingKey, SettingSource, Settings, Transport,
    example_yaml, keys,
};
use serde_json::{Value, json};

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn example_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/lorebase.example.yaml")
}

/// A settings file in a temporary directory.
fn file(dir: &tempfile::TempDir, yaml: &str) -> String {
    let path = dir.path().join("lorebase.yaml");
    std::fs::write(&path, yaml).unwrap();
    path.to_str().unwrap().to_string()
}

fn load(env_map: &BTreeMap<String, String>) -> Result<Settings, ConfigError> {
    Settings::load_with_env(env_map, &Overrides::new())
}

/// The keys of the herald section, dotted (sections one level deep).
fn leaves(herald: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (name, value) in herald.as_object().unwrap() {
        match value {
            Value::Object(section) => out.extend(section.keys().map(|k| format!("{name}.{k}"))),
            _ => out.push(name.clone()),
        }
    }
    out
}

#[test]
fn the_example_file_is_exactly_the_defaults() {
    let path = example_path();
    let settings = load(&env(&[("LOREBASE_CONFIG", path.to_str().unwrap())])).unwrap();
    assert_eq!(settings, Settings::default());
}

/// The checked-in example file is the one the settings table generates;
/// `UPDATE_EXAMPLE=1` rewrites it.
#[test]
fn the_example_file_is_generated_from_the_settings_table() {
    let path = example_path();
    let generated = example_yaml();
    if std::env::var_os("UPDATE_EXAMPLE").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap();
    let first_difference = checked_in
        .lines()
        .zip(generated.lines())
        .position(|(a, b)| a != b)
        .map_or(
            checked_in.lines().count().min(generated.lines().count()),
            |i| i,
        )
        + 1;
    assert!(
        checked_in == generated,
        "config/lorebase.example.yaml differs from the settings table (core/src/config/table.rs) \
         from line {first_difference}; regenerate it with: UPDATE_EXAMPLE=1 cargo test \
         -p lorebase-herald-core --test integration the_example_file_is_generated"
    );
}

#[test]
fn the_example_file_lists_every_key_once() {
    let text = std::fs::read_to_string(example_path()).unwrap();
    let doc: Value = serde_norway::from_str(&text).unwrap();
    let mut listed = leaves(&doc["herald"]);
    let mut expected: Vec<String> = keys().map(str::to_string).collect();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
}

#[test]
fn without_anything_the_defaults_apply() {
    assert_eq!(load(&env(&[])).unwrap(), Settings::default());
    let d = Settings::default();
    assert_eq!(d.keeper.base_url, "http://127.0.0.1:8080");
    assert_eq!((d.keeper.max_retries, d.keeper.retry_max_wait_s), (2, 5));
    assert!(!d.keeper.trust_env && d.keeper.verify_tls);
    assert_eq!(
        (d.http.host.as_str(), d.http.port, d.http.path.as_str()),
        ("127.0.0.1", 8090, "/mcp")
    );
    assert!(d.http.stateless && d.http.json_response && !d.http.allow_anonymous);
    assert_eq!(d.output.max_chars, 12_000);
    assert_eq!(d.transport, Transport::Stdio);
}

#[test]
fn layers_apply_file_then_long_then_short_variables_then_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(
        &dir,
        "keeper:\n  other: ignored\nherald:\n  domain: from-file\n  branch: file-branch\n  keeper:\n    base_url: http://file:1\n    max_retries: 1\n  http:\n    port: 9001\n    host: 0.0.0.0\n",
    );
    let e = env(&[
        ("LOREBASE_CONFIG", &path),
        ("LOREBASE__HERALD__KEEPER__MAX_RETRIES", "0"),
        ("LOREBASE__HERALD__KEEPER__BASE_URL", "http://long:2"),
        ("LOREBASE__HERALD__HTTP__PORT", "9002"),
        ("LOREBASE__HERALD__DOMAIN", "from-long"),
        ("LOREBASE_URL", "http://short:3/"),
        ("LOREBASE_DOMAIN", "supply"),
        ("LOREBASE_BRANCH", ""),
    ]);
    let mut flags = Overrides::new();
    flags.set(SettingKey::HttpPort, 9003, "--port");
    let s = Settings::load_with_env(&e, &flags).unwrap();
    assert_eq!(
        s.keeper.base_url, "http://short:3",
        "short variable over long, trailing / dropped"
    );
    assert_eq!(s.keeper.max_retries, 0, "long variable over file");
    assert_eq!(s.domain.as_deref(), Some("supply"));
    assert_eq!(
        s.branch.as_deref(),
        Some("file-branch"),
        "an empty short variable is ignored"
    );
    assert_eq!(s.http.port, 9003, "overrides on top");
    assert_eq!(s.http.host, "0.0.0.0");
}

#[test]
fn text_values_parse_by_type() {
    let e = env(&[
        ("LOREBASE__HERALD__TRANSPORT", "streamable_http"),
        (
            "LOREBASE__HERALD__HTTP__ALLOWED_HOSTS",
            r#"["herald", "herald.example.com"]"#,
        ),
        (
            "LOREBASE__HERALD__HTTP__ALLOWED_ORIGINS",
            "http://a.example, https://b.example",
        ),
        ("LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS", "TRUE"),
        (
            "LOREBASE__HERALD__TOOLS__ALLOW",
            "lorebase_get,lorebase_search",
        ),
        ("LOREBASE__HERALD__TOOLS__READ_ONLY", "1"),
        ("LOREBASE__HERALD__KB__DIR", "/srv/kb"),
    ]);
    let s = load(&e).unwrap();
    assert_eq!(s.transport, Transport::StreamableHttp);
    assert_eq!(s.http.allowed_hosts, ["herald", "herald.example.com"]);
    assert_eq!(
        s.http.allowed_origins,
        ["http://a.example", "https://b.example"]
    );
    assert!(s.http.allow_anonymous && s.tools.read_only);
    assert_eq!(
        s.tools.allow.as_deref(),
        Some(&["lorebase_get".to_string(), "lorebase_search".into()][..])
    );
    assert_eq!(s.kb.dir.as_deref(), Some(Path::new("/srv/kb")));
}

#[test]
fn an_empty_variable_unsets_an_optional_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "herald:\n  domain: supply\n");
    let e = env(&[("LOREBASE_CONFIG", &path), ("LOREBASE__HERALD__DOMAIN", "")]);
    assert_eq!(load(&e).unwrap().domain, None);
}

fn one_line(err: &ConfigError) -> String {
    let text = err.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    text
}

#[test]
fn unknown_keys_fail_naming_key_and_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "herald:\n  http:\n    prot: 1\n");
    let err = load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap_err();
    let text = one_line(&err);
    assert!(matches!(err, ConfigError::UnknownKey { .. }), "{text}");
    assert!(
        text.contains("herald.http.prot") && text.contains(&path),
        "{text}"
    );

    let err = load(&env(&[("LOREBASE__HERALD__KEEPER__RETRIES", "3")])).unwrap_err();
    let text = one_line(&err);
    assert!(
        text.contains("herald.keeper.retries")
            && text.contains("LOREBASE__HERALD__KEEPER__RETRIES"),
        "{text}"
    );

    // A typed key cannot be mistyped (`SettingKey::KeeperUrl` does not
    // compile: the doctest of `SettingKey`); an object's can.
    let typo = Overrides::from_json(&json!({"keeper": {"url": "x"}}), "--url").unwrap();
    let err = Settings::load_with_env(&env(&[]), &typo).unwrap_err();
    assert!(one_line(&err).contains("(from --url)"), "{err}");

    let err = load(&env(&[(
        "LOREBASE_CONFIG",
        &file(&dir, "herald:\n  keeper: 5\n"),
    )]))
    .unwrap_err();
    assert!(
        one_line(&err).contains("herald.keeper ") && err.to_string().contains("mapping"),
        "{err}"
    );
}

#[test]
fn wrong_types_fail_naming_key_and_source() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("herald:\n  http:\n    port: \"8090\"\n", "herald.http.port"),
        (
            "herald:\n  keeper:\n    trust_env: yes please\n",
            "herald.keeper.trust_env",
        ),
        (
            "herald:\n  http:\n    allowed_hosts: herald\n",
            "herald.http.allowed_hosts",
        ),
        ("herald:\n  transport: sse\n", "herald.transport"),
        (
            "herald:\n  output:\n    max_chars: -1\n",
            "herald.output.max_chars",
        ),
        ("herald:\n  tools:\n    deny: [1]\n", "herald.tools.deny"),
    ];
    for (yaml, key) in cases {
        let path = file(&dir, yaml);
        let err = load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap_err();
        let text = one_line(&err);
        assert!(matches!(err, ConfigError::Invalid { .. }), "{text}");
        assert!(
            text.contains(&format!("{key} (from {path})")),
            "{yaml:?}: {text}"
        );
    }
    // A max_chars too small for the cut marker and a footer is refused.
    let err = load(&env(&[("LOREBASE__HERALD__OUTPUT__MAX_CHARS", "60")])).unwrap_err();
    let text = one_line(&err);
    assert!(
        text.contains("herald.output.max_chars (from LOREBASE__HERALD__OUTPUT__MAX_CHARS)")
            && text.contains("from 500 to"),
        "{text}"
    );
    let ok = load(&env(&[("LOREBASE__HERALD__OUTPUT__MAX_CHARS", "500")])).unwrap();
    assert_eq!(ok.output.max_chars, 500);
    let err = load(&env(&[("LOREBASE__HERALD__HTTP__PORT", "eighty")])).unwrap_err();
    let text = one_line(&err);
    assert!(
        text.contains("herald.http.port (from LOREBASE__HERALD__HTTP__PORT)")
            && text.contains("eighty"),
        "{text}"
    );
}

#[test]
fn impossible_values_fail() {
    let cases = [
        ("LOREBASE__HERALD__HTTP__PORT", "70000", "herald.http.port"),
        (
            "LOREBASE__HERALD__KEEPER__MAX_RETRIES",
            "11",
            "herald.keeper.max_retries",
        ),
        (
            "LOREBASE__HERALD__KEEPER__TIMEOUT_S",
            "0",
            "herald.keeper.timeout_s",
        ),
        (
            "LOREBASE__HERALD__KEEPER__MAX_RESPONSE_BYTES",
            "10",
            "herald.keeper.max_response_bytes",
        ),
        (
            "LOREBASE__HERALD__CHANGES__MAX_PAGES",
            "0",
            "herald.changes.max_pages",
        ),
        ("LOREBASE__HERALD__HTTP__PATH", "mcp", "herald.http.path"),
        ("LOREBASE__HERALD__HTTP__HOST", "", "herald.http.host"),
        (
            "LOREBASE__HERALD__HTTP__ALLOWED_ORIGINS",
            "localhost",
            "herald.http.allowed_origins",
        ),
        ("LOREBASE_URL", "ftp://keeper:21", "herald.keeper.base_url"),
        ("LOREBASE_URL", "not a url", "herald.keeper.base_url"),
        (
            "LOREBASE_URL",
            "http://keeper:8080/?x=1",
            "herald.keeper.base_url",
        ),
    ];
    for (var, value, key) in cases {
        let err = load(&env(&[(var, value)])).unwrap_err();
        let text = one_line(&err);
        assert!(
            text.contains(&format!("{key} (from {var})")),
            "{var}={value}: {text}"
        );
    }
}

#[test]
fn credentials_in_the_url_are_refused_without_quoting_them() {
    let err = load(&env(&[(
        "LOREBASE_URL",
        "http://agent:hunter2-secret@keeper:8080",
    )]))
    .unwrap_err();
    let text = one_line(&err);
    assert!(
        text.contains("herald.keeper.base_url") && !text.contains("hunter2"),
        "{text}"
    );
}

#[test]
fn trust_env_with_verify_tls_off_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "herald:\n  keeper:\n    verify_tls: false\n");
    let e = env(&[
        ("LOREBASE_CONFIG", &path),
        ("LOREBASE__HERALD__KEEPER__TRUST_ENV", "true"),
    ]);
    let err = load(&e).unwrap_err();
    let text = one_line(&err);
    assert!(matches!(err, ConfigError::Conflict(_)));
    assert!(
        text.contains("trust_env: true (from LOREBASE__HERALD__KEEPER__TRUST_ENV)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("verify_tls: false (from {path})")),
        "{text}"
    );
    // Each alone is fine.
    let s = load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap();
    assert!(!s.keeper.verify_tls);
}

#[test]
fn oauth_needs_its_audience_and_a_client_and_reads_the_secret_as_a_secret() {
    let servers = (
        "LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS",
        "https://as.example",
    );
    let resource = (
        "LOREBASE__HERALD__HTTP__RESOURCE_URL",
        "https://h.example/mcp",
    );
    let text = one_line(&load(&env(&[servers])).unwrap_err());
    assert!(text.contains("needs herald.http.resource_url"), "{text}");
    let text = one_line(&load(&env(&[servers, resource])).unwrap_err());
    assert!(
        text.contains("keeper_token: exchange") && text.contains("oauth_client_id"),
        "{text}"
    );
    let forward = ("LOREBASE__HERALD__HTTP__KEEPER_TOKEN", "forward");
    let s = load(&env(&[servers, resource, forward])).unwrap();
    assert_eq!(s.http.keeper_token, KeeperToken::Forward);
    let introspect = (
        "LOREBASE__HERALD__HTTP__INTROSPECTION_ENDPOINT",
        "https://as.example/introspect",
    );
    let text = one_line(&load(&env(&[servers, resource, forward, introspect])).unwrap_err());
    assert!(text.contains("introspection_endpoint"), "{text}");
    let s = load(&env(&[
        servers,
        resource,
        ("LOREBASE__HERALD__HTTP__OAUTH_CLIENT_ID", "herald"),
        (
            "LOREBASE__HERALD__HTTP__OAUTH_CLIENT_SECRET",
            "secret://env/AS_SECRET",
        ),
        ("AS_SECRET", "s3cr3t-value"),
    ]))
    .unwrap();
    assert_eq!(s.http.keeper_token, KeeperToken::Exchange);
    let secret = s.http.oauth_client_secret.as_ref().unwrap();
    assert_eq!(secret.expose(), "s3cr3t-value");
    assert!(!format!("{s:?}").contains("s3cr3t-value"));
    let bad = ("LOREBASE__HERALD__HTTP__KEEPER_TOKEN", "passthrough");
    let text = one_line(&load(&env(&[bad])).unwrap_err());
    assert!(text.contains("expected exchange or forward"), "{text}");
}

#[test]
fn the_settings_file_fails_loudly() {
    let err = load(&env(&[("LOREBASE_CONFIG", "/nonexistent/lorebase.yaml")])).unwrap_err();
    assert!(matches!(err, ConfigError::File { .. }));
    assert!(
        one_line(&err).contains("/nonexistent/lorebase.yaml"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    for yaml in [
        "herald: [1, 2]\n",
        "herald:\n  domain: [unclosed\n",
        "- a list\n",
    ] {
        let path = file(&dir, yaml);
        let err = load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap_err();
        assert!(matches!(err, ConfigError::File { .. }), "{yaml:?}: {err}");
        assert!(one_line(&err).contains(&path));
    }
    // An empty file, or one without a herald section, is the defaults.
    for yaml in [
        "",
        "keeper:\n  port: 1\n",
        "herald:\n",
        "herald:\n  tools:\n",
    ] {
        let path = file(&dir, yaml);
        assert_eq!(
            load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap(),
            Settings::default(),
            "{yaml:?}"
        );
    }
}

#[test]
fn secrets_resolve_from_literals_variables_and_files() {
    let literal = load(&env(&[("LOREBASE_API_KEY", "lbk_literal_1")])).unwrap();
    assert_eq!(literal.keeper.api_key.unwrap().expose(), "lbk_literal_1");

    let e = env(&[
        ("LOREBASE_API_KEY", "secret://env/AGENT_KEY"),
        ("AGENT_KEY", "lbk_env_2"),
    ]);
    assert_eq!(
        load(&e).unwrap().keeper.api_key.unwrap().expose(),
        "lbk_env_2"
    );

    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("agent_key");
    std::fs::write(&key_file, "lbk_file_3\n").unwrap();
    let reference = format!("secret://file/{}", key_file.display());
    let path = file(
        &dir,
        &format!("herald:\n  keeper:\n    api_key: {reference}\n"),
    );
    let s = load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap();
    assert_eq!(s.keeper.api_key.as_ref().unwrap().expose(), "lbk_file_3");
    assert!(
        !format!("{s:?}").contains("lbk_file_3"),
        "Debug shows the key"
    );
}

#[test]
fn missing_secrets_fail_naming_the_reference_only() {
    let e = env(&[("LOREBASE_API_KEY", "secret://env/NOT_THERE")]);
    let err = load(&e).unwrap_err();
    let text = one_line(&err);
    assert!(matches!(err, ConfigError::Secret { .. }));
    assert!(
        text.contains("herald.keeper.api_key (from LOREBASE_API_KEY)"),
        "{text}"
    );
    assert!(
        text.contains("secret://env/NOT_THERE") && text.contains("not set"),
        "{text}"
    );

    let e = env(&[("LOREBASE_API_KEY", "secret://file//nonexistent/key")]);
    assert!(one_line(&load(&e).unwrap_err()).contains("secret://file//nonexistent/key"));

    // A wrongly typed key is not quoted.
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "herald:\n  keeper:\n    api_key: [lbk_in_a_list_9]\n");
    let text = one_line(&load(&env(&[("LOREBASE_CONFIG", &path)])).unwrap_err());
    assert!(
        text.contains("herald.keeper.api_key") && !text.contains("lbk_in_a_list_9"),
        "{text}"
    );

    // Only the winning layer's reference is resolved.
    let e = env(&[
        (
            "LOREBASE__HERALD__KEEPER__API_KEY",
            "secret://env/NOT_THERE",
        ),
        ("LOREBASE_API_KEY", "lbk_short_wins"),
    ]);
    assert_eq!(
        load(&e).unwrap().keeper.api_key.unwrap().expose(),
        "lbk_short_wins"
    );
}

#[test]
fn binding_options_are_the_herald_section_as_json() {
    let options = json!({"keeper": {"base_url": "http://127.0.0.1:9999", "max_retries": 0}, "domain": "supply", "tools": {"deny": ["lorebase_execute"]}});
    let overrides = Overrides::from_json(&options, "options").unwrap();
    let s = Settings::load_with_env(&env(&[("LOREBASE_DOMAIN", "retail")]), &overrides).unwrap();
    assert_eq!(s.keeper.base_url, "http://127.0.0.1:9999");
    assert_eq!(s.keeper.max_retries, 0);
    assert_eq!(
        s.domain.as_deref(),
        Some("supply"),
        "options win over variables"
    );
    assert_eq!(s.tools.deny, ["lorebase_execute"]);

    let bad = Overrides::from_json(&json!({"keeper": {"max_retries": "two"}}), "options").unwrap();
    let err = Settings::load_with_env(&env(&[]), &bad).unwrap_err();
    assert!(
        one_line(&err).contains("herald.keeper.max_retries (from options)"),
        "{err}"
    );
    let err = Settings::load_with_env(
        &env(&[]),
        &Overrides::from_json(&json!({"kepper": {}}), "options").unwrap(),
    );
    assert!(
        matches!(err, Err(ConfigError::UnknownKey { .. })),
        "an empty unknown section: {err:?}"
    );

    let err = Overrides::from_json(&json!([1]), "options").unwrap_err();
    assert!(
        matches!(err, ConfigError::NotAnObject { origin: SettingSource::Override(ref l) } if l == "options")
    );
    assert!(Settings::from_json_str("{not json").is_err());
}

#[test]
fn text_flags_parse_like_variables() {
    let mut flags = Overrides::new();
    flags
        .set_text(SettingKey::HttpPort, "8123", "--port")
        .set_text(SettingKey::HttpStateless, "false", "--stateful");
    let s = Settings::load_with_env(&env(&[]), &flags).unwrap();
    assert_eq!((s.http.port, s.http.stateless), (8123, false));
    let mut flags = Overrides::new();
    flags.set_text(SettingKey::HttpPort, "x", "--port");
    let err = Settings::load_with_env(&env(&[]), &flags).unwrap_err();
    assert!(one_line(&err).contains("(from --port)"));
}

#[test]
fn proxy_variables_are_captured_only_when_trusted() {
    let e = env(&[
        ("HTTP_PROXY", "http://user:pw@proxy:3128"),
        ("no_proxy", "localhost"),
    ]);
    let s = load(&e).unwrap();
    assert!(s.keeper.env_proxy.is_empty());
    let mut e = e;
    e.insert("LOREBASE__HERALD__KEEPER__TRUST_ENV".into(), "true".into());
    let s = load(&e).unwrap();
    assert_eq!(
        s.keeper.env_proxy.http.as_ref().unwrap().expose(),
        "http://user:pw@proxy:3128"
    );
    assert_eq!(s.keeper.env_proxy.no_proxy.as_deref(), Some("localhost"));
    assert!(
        !format!("{s:?}").contains("pw@"),
        "Debug shows the proxy credentials"
    );
}
