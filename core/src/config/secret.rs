//! Secret values and secret references (`secret://env/NAME`, `secret://file/PATH`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// A secret value (an API key, a token). `Debug` and `Display` print `***`;
/// the value is only reachable through [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a resolved secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// The prefix of a secret reference.
pub const SECRET_REF_PREFIX: &str = "secret://";

/// Largest secret file read (a key is a few dozen bytes).
const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

/// Why a secret reference could not be resolved. The message names the
/// reference, never a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reference}: {reason}")]
pub struct SecretRefError {
    /// The reference as written (`secret://env/NAME`), or its scheme when the
    /// scheme is unknown.
    pub reference: String,
    /// What went wrong.
    pub reason: String,
}

/// Resolves a configured secret: a literal is the value itself;
/// `secret://env/NAME` reads the variable `NAME` of `env`; `secret://file/PATH`
/// reads the file at `PATH` (absolute as `secret://file//run/secrets/key`,
/// otherwise relative to the working directory), without its trailing newline.
pub fn resolve_secret(
    text: &str,
    env: &BTreeMap<String, String>,
) -> Result<Secret, SecretRefError> {
    let Some(rest) = text.strip_prefix(SECRET_REF_PREFIX) else {
        return Ok(Secret::new(text));
    };
    let err = |reason: String| SecretRefError {
        reference: text.to_string(),
        reason,
    };
    if let Some(name) = rest.strip_prefix("env/") {
        if name.is_empty() {
            return Err(err("no variable name after secret://env/".into()));
        }
        return match env.get(name) {
            Some(value) if !value.is_empty() => Ok(Secret::new(value.clone())),
            Some(_) => Err(err(format!("the variable {name} is empty"))),
            None => Err(err(format!("the variable {name} is not set"))),
        };
    }
    if let Some(path) = rest.strip_prefix("file/") {
        if path.is_empty() {
            return Err(err("no path after secret://file/".into()));
        }
        return read_secret_file(Path::new(path)).map_err(err);
    }
    let scheme = rest.split('/').next().unwrap_or_default();
    Err(SecretRefError {
        reference: format!("{SECRET_REF_PREFIX}{scheme}/..."),
        reason: "unknown kind of secret reference (use secret://env/NAME or secret://file/PATH)"
            .into(),
    })
}

fn read_secret_file(path: &Path) -> Result<Secret, String> {
    let text = crate::regular_file::read_text(path, MAX_SECRET_FILE_BYTES)
        .map_err(|e| format!("the file: {e}"))?;
    let value = text.trim_end_matches(['\r', '\n']);
    if value.trim().is_empty() {
        return Err("the file is empty".into());
    }
    Ok(Secret::new(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn secrets_print_stars() {
        let s = Secret::new("lbk_top_secret");
        assert_eq!(format!("{s} {s:?}"), "*** ***");
        assert_eq!(s.expose(), "lbk_top_secret");
    }

    #[test]
    fn literals_and_env_references_resolve() {
        let e = env(&[("KEY", "lbk_1"), ("EMPTY", "")]);
        assert_eq!(resolve_secret("lbk_lit", &e).unwrap().expose(), "lbk_lit");
        assert_eq!(
            resolve_secret("secret://env/KEY", &e).unwrap().expose(),
            "lbk_1"
        );
        let missing = resolve_secret("secret://env/NOPE", &e).unwrap_err();
        assert_eq!(missing.reference, "secret://env/NOPE");
        assert!(missing.reason.contains("NOPE is not set"), "{missing}");
        assert!(resolve_secret("secret://env/EMPTY", &e).is_err());
        assert!(resolve_secret("secret://env/", &e).is_err());
    }

    #[test]
    fn unknown_schemes_do_not_echo_the_rest() {
        let e = resolve_secret("secret://vault/path/lbk_hidden", &env(&[])).unwrap_err();
        assert!(!e.to_string().contains("lbk_hidden"), "{e}");
        assert!(e.to_string().contains("secret://vault/"), "{e}");
    }
}
