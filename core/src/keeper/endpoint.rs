//! Keeper's routes, each written once: an [`Endpoint`] is a method and a path
//! template (`GET /branches/{branch}/log`). The template is what names the
//! route in metrics, logs and errors, and it is also what the URL is built
//! from (each `{placeholder}` filled with one percent-encoded segment), so the
//! two cannot drift apart.

use super::error::KeeperError;
use keeper_wire::ProblemCode;

/// The HTTP method of a route: a `GET` sends its input as the query, a
/// `POST` as the JSON body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
}

/// One Keeper route under `{base_url}/api/v1/domains/{domain}`: its template
/// (`METHOD /path/{placeholder}`), with `N` placeholders, each filled by one
/// part. The constructor checks the shape when the constant is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Endpoint<const N: usize = 0> {
    method: Method,
    template: &'static str,
}

/// Keeper's context pack for a task.
pub(crate) const CONTEXT: Endpoint = Endpoint::new("POST /context");
/// Records matching words.
pub(crate) const SEARCH: Endpoint = Endpoint::new("POST /search");
/// The Domain's schema.
pub(crate) const SCHEMA: Endpoint = Endpoint::new("GET /schema");
/// A Record: its Kind, then its key.
pub(crate) const RECORD: Endpoint<2> = Endpoint::new("GET /kinds/{kind}/records/{key}");
/// Records a model's words stand for.
pub(crate) const RESOLVE: Endpoint = Endpoint::new("POST /resolve");
/// Records matching a predicate.
pub(crate) const QUERY: Endpoint = Endpoint::new("POST /query");
/// The Records around seeds.
pub(crate) const NEIGHBORHOOD: Endpoint = Endpoint::new("POST /neighborhood");
/// Why a Record holds its values: its Kind, then its key.
pub(crate) const EXPLAIN: Endpoint<2> = Endpoint::new("GET /kinds/{kind}/records/{key}/explain");
/// A Record's changes: its Kind, then its key.
pub(crate) const HISTORY: Endpoint<2> = Endpoint::new("GET /kinds/{kind}/records/{key}/history");
/// Where a Record's values came from: its Kind, then its key.
pub(crate) const LINEAGE: Endpoint<2> = Endpoint::new("GET /kinds/{kind}/records/{key}/lineage");
/// The Domain's branches.
pub(crate) const BRANCHES: Endpoint = Endpoint::new("GET /branches");
/// A branch's log: the branch name (one segment, so it may hold `/`).
pub(crate) const BRANCH_LOG: Endpoint<1> = Endpoint::new("GET /branches/{branch}/log");
/// What changed between two revisions.
pub(crate) const DIFF: Endpoint = Endpoint::new("GET /diff");
/// An operation run: the operation's name.
pub(crate) const EXECUTE: Endpoint<1> = Endpoint::new("POST /operations/{op}/execute");

impl<const N: usize> Endpoint<N> {
    /// The route of `template`, `GET /...` or `POST /...` with `N`
    /// placeholders; any other shape fails to compile where the constant is
    /// declared.
    const fn new(template: &'static str) -> Self {
        let bytes = template.as_bytes();
        let method = if starts_with(bytes, b"GET /") {
            Method::Get
        } else if starts_with(bytes, b"POST /") {
            Method::Post
        } else {
            panic!("a Keeper route starts with `GET /` or `POST /`")
        };
        let (mut i, mut holes) = (0, 0);
        while i < bytes.len() {
            if bytes[i] == b'{' {
                holes += 1;
            }
            i += 1;
        }
        assert!(holes == N, "a Keeper route has one part per placeholder");
        Self { method, template }
    }

    /// Its method.
    pub(super) fn method(&self) -> Method {
        self.method
    }

    /// The template that names it in metrics, logs and errors
    /// (`GET /branches/{branch}/log`).
    pub(crate) const fn template(&self) -> &'static str {
        self.template
    }

    /// `{base}/api/v1/domains/{domain}` and the template's path, each
    /// placeholder filled with its part, in order. The domain and every part
    /// are percent-encoded as one path segment (so keys and branches may hold
    /// `/`); an empty part, `.` or `..` is refused before any call.
    pub(super) fn url(
        &self,
        base: &url::Url,
        domain: &str,
        parts: [&str; N],
    ) -> Result<url::Url, KeeperError> {
        let mut url = base.clone();
        {
            let mut path = url.path_segments_mut().map_err(|()| {
                KeeperError::Setup(format!(
                    "herald.{} cannot take a path",
                    crate::config::SettingKey::KeeperBaseUrl
                ))
            })?;
            path.pop_if_empty().extend(["api", "v1", "domains"]);
            path.push(checked("domain", domain)?);
            let mut parts = parts.into_iter();
            for segment in self.path().split('/').skip(1) {
                match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(hole) => path.push(checked(argument(hole), parts.next().unwrap_or(""))?),
                    None => path.push(segment),
                };
            }
        }
        Ok(url)
    }

    /// The path of its template (`/branches/{branch}/log`).
    fn path(&self) -> &'static str {
        self.template
            .split_once(' ')
            .map_or(self.template, |(_, path)| path)
    }
}

/// `part`, unless it is empty, `.` or `..` (which would change the endpoint,
/// be dropped or climb): then a `validation-failed` problem naming `name`.
fn checked<'a>(name: &str, part: &'a str) -> Result<&'a str, KeeperError> {
    if part.is_empty() || part == "." || part == ".." {
        return Err(KeeperError::local_issue(
            ProblemCode::ValidationFailed,
            format!("{name} must not be empty, . or .."),
            name,
            "is not a valid name",
        ));
    }
    Ok(part)
}

/// The argument a placeholder's part comes from, as a refusal names it: a
/// Record's Kind and key are its `ref`, `{op}` is the `operation`.
fn argument(placeholder: &str) -> &str {
    match placeholder {
        "kind" | "key" => "ref",
        "op" => "operation",
        other => other,
    }
}

/// Whether `bytes` starts with `prefix` (a `const` `starts_with`).
const fn starts_with(bytes: &[u8], prefix: &[u8]) -> bool {
    if bytes.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if bytes[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one route gives: its method, its template, and its URL for `parts`.
    fn row<const N: usize>(
        endpoint: &Endpoint<N>,
        parts: [&str; N],
    ) -> (Method, &'static str, String) {
        let base = url::Url::parse("https://keeper.test/base/").unwrap();
        let url = endpoint.url(&base, "supply", parts).unwrap();
        (endpoint.method(), endpoint.template(), url.to_string())
    }

    /// The template with each placeholder replaced by its part, as Keeper's
    /// contract spells the URL.
    fn filled(template: &str, parts: &[&str]) -> String {
        let (_, path) = template.split_once(' ').unwrap();
        let mut parts = parts.iter();
        let segments: Vec<String> = path
            .split('/')
            .skip(1)
            .map(|s| {
                if s.starts_with('{') {
                    encode(parts.next().unwrap())
                } else {
                    s.to_string()
                }
            })
            .collect();
        format!(
            "https://keeper.test/base/api/v1/domains/supply/{}",
            segments.join("/")
        )
    }

    /// `part` percent-encoded as one path segment.
    fn encode(part: &str) -> String {
        part.replace('%', "%25")
            .replace('/', "%2F")
            .replace('?', "%3F")
            .replace(' ', "%20")
    }

    #[test]
    fn every_route_gives_its_template_and_its_url() {
        use Method::{Get, Post};
        let rec = ["Supplier", "S-1/../?x=1"];
        let rec_url = "kinds/Supplier/records/S-1%2F..%2F%3Fx=1";
        let table = [
            (row(&CONTEXT, []), Post, "POST /context", "context", &[][..]),
            (row(&SEARCH, []), Post, "POST /search", "search", &[]),
            (row(&SCHEMA, []), Get, "GET /schema", "schema", &[]),
            (
                row(&RECORD, rec),
                Get,
                "GET /kinds/{kind}/records/{key}",
                rec_url,
                &rec,
            ),
            (row(&RESOLVE, []), Post, "POST /resolve", "resolve", &[]),
            (row(&QUERY, []), Post, "POST /query", "query", &[]),
            (
                row(&NEIGHBORHOOD, []),
                Post,
                "POST /neighborhood",
                "neighborhood",
                &[],
            ),
            (
                row(&EXPLAIN, rec),
                Get,
                "GET /kinds/{kind}/records/{key}/explain",
                &format!("{rec_url}/explain"),
                &rec,
            ),
            (
                row(&HISTORY, rec),
                Get,
                "GET /kinds/{kind}/records/{key}/history",
                &format!("{rec_url}/history"),
                &rec,
            ),
            (
                row(&LINEAGE, rec),
                Get,
                "GET /kinds/{kind}/records/{key}/lineage",
                &format!("{rec_url}/lineage"),
                &rec,
            ),
            (row(&BRANCHES, []), Get, "GET /branches", "branches", &[]),
            (
                row(&BRANCH_LOG, ["agent/bot one"]),
                Get,
                "GET /branches/{branch}/log",
                "branches/agent%2Fbot%20one/log",
                &["agent/bot one"],
            ),
            (row(&DIFF, []), Get, "GET /diff", "diff", &[]),
            (
                row(&EXECUTE, ["update_supplier"]),
                Post,
                "POST /operations/{op}/execute",
                "operations/update_supplier/execute",
                &["update_supplier"],
            ),
        ];
        for ((method, template, url), want_method, want_template, want_path, parts) in table {
            assert_eq!(template, want_template);
            assert_eq!(method, want_method, "{template}");
            let want_url = format!("https://keeper.test/base/api/v1/domains/supply/{want_path}");
            assert_eq!(url, want_url, "{template}");
            // The URL is the template's path, filled: one value gives both.
            assert_eq!(url, filled(template, parts), "{template}");
        }
    }

    #[test]
    fn a_refused_part_names_the_argument_it_came_from() {
        let base = url::Url::parse("http://keeper.test").unwrap();
        let refused = |e: KeeperError| match e {
            KeeperError::Problem(p) => (p.detail.clone(), p.issues[0].path.clone()),
            other => panic!("{other}"),
        };
        let cases = [
            (SCHEMA.url(&base, "", []).unwrap_err(), "domain"),
            (
                RECORD.url(&base, "supply", [".", "S-1"]).unwrap_err(),
                "ref",
            ),
            (RECORD.url(&base, "supply", ["S", ""]).unwrap_err(), "ref"),
            (
                BRANCH_LOG.url(&base, "supply", [".."]).unwrap_err(),
                "branch",
            ),
            (EXECUTE.url(&base, "supply", [""]).unwrap_err(), "operation"),
        ];
        for (error, name) in cases {
            let (detail, path) = refused(error);
            assert_eq!(detail, format!("{name} must not be empty, . or .."));
            assert_eq!(path, name);
        }
        // A base without a trailing slash gets the same path.
        let url = SCHEMA.url(&base, "supply", []).unwrap();
        assert_eq!(
            url.as_str(),
            "http://keeper.test/api/v1/domains/supply/schema"
        );
    }
}
