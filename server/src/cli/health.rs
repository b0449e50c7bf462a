//! `lorebase-herald health [URL]`: one `GET` of a health endpoint, exit 0 on
//! a 2xx answer and 1 otherwise. It is the container image's `HEALTHCHECK`
//! and a Kubernetes exec probe, with no shell or curl in the image.
//!
//! Without a URL it checks this Herald as its settings describe it: with
//! `transport: streamable_http`, `http://127.0.0.1:{http.port}/healthz` (or
//! the address `http.host` names, when it is not a wildcard); with `stdio`
//! there is no endpoint, and the process a host started is its own check, so
//! it answers healthy at once. The settings are those of the environment and
//! flags, as for serving, so a container's health check sees the container's.

use std::net::IpAddr;
use std::time::Duration;

use herald_core::config::SettingKey;
use herald_core::config::{Settings, Transport};
use herald_core::keeper::roots::{build_client, error_chain};

use crate::error::ServerError;

/// The URL checked when the settings name none: Herald's default listener.
#[cfg(test)]
const DEFAULT_URL: &str = "http://127.0.0.1:8090/healthz";

/// The longest wait for an answer.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(3);

/// What to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HealthTarget {
    /// `GET` this URL.
    Url(String),
    /// stdio: nothing listens, nothing to check.
    Stdio,
}

/// The target for `url` (given) or else `settings`.
pub(crate) fn target(url: Option<&str>, settings: &Settings) -> Result<HealthTarget, ServerError> {
    if let Some(url) = url {
        return Ok(HealthTarget::Url(url.to_string()));
    }
    if settings.transport == Transport::Stdio {
        return Ok(HealthTarget::Stdio);
    }
    let http = &settings.http;
    if http.port == 0 {
        return Err(ServerError::Usage(format!(
            "{} is 0 (a free port picked at start): give the URL, lorebase-herald health http://HOST:PORT/healthz",
            SettingKey::HttpPort
        )));
    }
    let host = http.host.trim_matches(['[', ']']);
    let host = match host.parse::<IpAddr>() {
        Ok(ip) if ip.is_unspecified() && ip.is_ipv6() => "[::1]".to_string(),
        Ok(ip) if ip.is_unspecified() => "127.0.0.1".to_string(),
        Ok(IpAddr::V6(ip)) => format!("[{ip}]"),
        Ok(IpAddr::V4(ip)) => ip.to_string(),
        Err(_) => host.to_string(),
    };
    Ok(HealthTarget::Url(format!(
        "http://{host}:{}/healthz",
        http.port
    )))
}

/// Checks `target`: 0 when healthy, 1 when not (why, on stderr).
pub(crate) async fn check(target: &HealthTarget) -> Result<i32, ServerError> {
    let url = match target {
        HealthTarget::Stdio => {
            println!("healthy: stdio transport (no HTTP endpoint to check)");
            return Ok(0);
        }
        HealthTarget::Url(url) => url,
    };
    let parsed = reqwest::Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| ServerError::Usage(format!("not an http:// or https:// URL: {url}")))?;
    let make = || {
        reqwest::Client::builder()
            .timeout(TIMEOUT)
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!(
                "lorebase-herald-health/",
                env!("CARGO_PKG_VERSION")
            ))
    };
    let client = build_client(make, &[])
        .map_err(|e| ServerError::Transport(format!("cannot build the HTTP client: {e}")))?;
    match client.get(parsed).send().await {
        Ok(answer) if answer.status().is_success() => {
            println!("healthy: {url} answered {}", answer.status());
            Ok(0)
        }
        Ok(answer) => {
            eprintln!("unhealthy: {url} answered {}", answer.status());
            Ok(1)
        }
        Err(e) => {
            eprintln!("unhealthy: {url}: {}", error_chain(&e));
            Ok(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(host: &str, port: u16) -> Settings {
        let mut s = Settings {
            transport: Transport::StreamableHttp,
            ..Default::default()
        };
        s.http.host = host.into();
        s.http.port = port;
        s
    }

    fn url(t: HealthTarget) -> String {
        match t {
            HealthTarget::Url(u) => u,
            HealthTarget::Stdio => panic!("stdio"),
        }
    }

    #[test]
    fn the_default_is_herald_s_own_listener() {
        assert_eq!(
            url(target(None, &http("127.0.0.1", 8090)).unwrap()),
            DEFAULT_URL
        );
        assert_eq!(
            url(target(None, &http("0.0.0.0", 9000)).unwrap()),
            "http://127.0.0.1:9000/healthz"
        );
        assert_eq!(
            url(target(None, &http("::", 8090)).unwrap()),
            "http://[::1]:8090/healthz"
        );
        assert_eq!(
            url(target(None, &http("10.1.2.3", 8090)).unwrap()),
            "http://10.1.2.3:8090/healthz"
        );
        assert!(target(None, &http("0.0.0.0", 0)).is_err());
    }

    #[test]
    fn stdio_has_nothing_to_check_and_a_url_wins() {
        assert_eq!(
            target(None, &Settings::default()).unwrap(),
            HealthTarget::Stdio
        );
        assert_eq!(
            target(Some("http://h:1/healthz"), &Settings::default()).unwrap(),
            HealthTarget::Url("http://h:1/healthz".into())
        );
    }
}
