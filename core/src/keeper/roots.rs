//! The roots a TLS certificate is checked against, and an HTTP client that
//! builds with no system roots at all.
//!
//! reqwest on rustls checks certificates with the platform's verifier: on
//! Linux, the roots under `/etc/ssl/certs` (or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR`). With none there (a `FROM scratch` image), building the
//! client fails, even for a plain `http://` URL that never needs a root.
//! [`build_client`] builds with the platform's roots when it has some, and
//! otherwise with the Mozilla roots bundled in the binary
//! (`webpki-root-certs`). Extra roots (the private CA of `keeper.ca_file`,
//! [`read_ca_file`]) are trusted besides the platform's; where the platform
//! has none they are enough on their own, and the bundled roots are not
//! added.

use std::path::Path;

use super::error::KeeperError;
use crate::config::SettingKey;

/// The key of the file read here.
const CA_FILE: SettingKey = SettingKey::KeeperCaFile;

/// The Mozilla roots bundled in the binary, as reqwest certificates.
pub fn bundled_roots() -> impl Iterator<Item = reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
}

/// Builds a client from `make()`: with the platform's roots plus
/// `extra_roots`; when that fails (no platform roots and no extra ones), with
/// the bundled Mozilla roots. The error names every cause reqwest gives.
pub fn build_client(
    make: impl Fn() -> reqwest::ClientBuilder,
    extra_roots: &[reqwest::Certificate],
) -> Result<reqwest::Client, String> {
    let platform = match make().tls_certs_merge(extra_roots.iter().cloned()).build() {
        Ok(client) => return Ok(client),
        Err(e) => error_chain(&e),
    };
    tracing::debug!(
        "no system TLS roots ({platform}): certificates are checked against the bundled Mozilla roots"
    );
    make()
        .tls_certs_merge(extra_roots.iter().cloned().chain(bundled_roots()))
        .build()
        .map_err(|e| {
            format!(
                "{} (with the platform's roots: {platform})",
                error_chain(&e)
            )
        })
}

/// The largest `keeper.ca_file` read (a bundle of every public root is
/// about 220 KB).
pub const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The certificates of a PEM file (`keeper.ca_file`): a private CA trusted
/// besides the platform's (or the bundled) roots.
pub fn read_ca_file(path: &Path) -> Result<Vec<reqwest::Certificate>, KeeperError> {
    let shown = path.display();
    let pem = crate::regular_file::read(path, MAX_CA_FILE_BYTES)
        .map_err(|e| KeeperError::Setup(format!("herald.{CA_FILE}: cannot read {shown}: {e}")))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
        KeeperError::Setup(format!(
            "herald.{CA_FILE}: {shown} is not a PEM certificate file: {}",
            error_chain(&e)
        ))
    })?;
    if certs.is_empty() {
        return Err(KeeperError::Setup(format!(
            "herald.{CA_FILE}: {shown} holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        )));
    }
    Ok(certs)
}

/// An error and its causes, `outer: inner: ...` (reqwest's own text is often
/// only "builder error" or "error sending request").
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_roots_are_there() {
        assert!(bundled_roots().count() > 100);
    }

    #[test]
    fn a_ca_file_without_a_certificate_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let e = read_ca_file(&empty).unwrap_err().to_string();
        assert!(e.contains("holds no PEM certificate"), "{e}");
        let e = read_ca_file(&dir.path().join("missing.pem"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("herald.{CA_FILE}: cannot read")), "{e}");
    }
}
