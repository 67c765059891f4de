//! Which requests come from this machine: a `Host` and an `Origin` on loopback, each given at
//! most once. Both HTTP servers (the MCP tap and the authorization server) refuse the others.

use axum::http::HeaderMap;

/// Whether `host` is exactly a loopback host with an optional port: `127.0.0.1`, `localhost` or
/// `[::1]`, then nothing or `:` and 1–5 digits. Anything after the name (`[::1]evil.example`) fails.
fn is_loopback_host(host: &str) -> bool {
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((inside, after)) => (inside, after),
            None => return false,
        },
        None => match host.rsplit_once(':') {
            Some((name, port)) => (name, &host[name.len()..][..port.len() + 1]),
            None => (host, ""),
        },
    };
    let port_ok = port.is_empty() || port.strip_prefix(':').is_some_and(|p| (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
    let bracketed = host.starts_with('[');
    let name_ok = if bracketed { name == "::1" } else { name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost") };
    port_ok && name_ok
}

/// An `Origin` is acceptable when absent, or `http(s)://` plus a loopback host (and an optional `/`).
pub fn origin_allowed(origin: Option<&str>) -> bool {
    let Some(origin) = origin else { return true };
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else { return false };
    is_loopback_host(rest.strip_suffix('/').unwrap_or(rest))
}

/// A `Host` is acceptable when present and on loopback.
pub fn host_allowed(host: Option<&str>) -> bool {
    host.is_some_and(is_loopback_host)
}

/// The one value of a header that must not repeat: `Err` when it is given twice or is not text.
fn single_header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, ()> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(());
    }
    first.map(|v| v.to_str().map_err(|_| ())).transpose()
}

/// Whether the request's `Host` and `Origin` (each given at most once) are on loopback.
pub fn loopback_request(headers: &HeaderMap) -> bool {
    match (single_header(headers, "host"), single_header(headers, "origin")) {
        (Ok(host), Ok(origin)) => host_allowed(host) && origin_allowed(origin),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins_are_accepted_others_refused() {
        assert!(host_allowed(Some("127.0.0.1:8080")));
        assert!(host_allowed(Some("localhost")));
        assert!(host_allowed(Some("[::1]:9")));
        assert!(!host_allowed(Some("evil.example:80")));
        assert!(!host_allowed(None));
        assert!(origin_allowed(None));
        assert!(origin_allowed(Some("http://localhost:3000")));
        assert!(!origin_allowed(Some("https://evil.example")));
        assert!(!origin_allowed(Some("null")));
        // Issue 21, defect 9: only exactly a loopback host passes.
        for foreign in ["[::1]evil.example", "[::1]:80evil", "127.0.0.1.evil.example", "localhost:80:80", "127.0.0.1:", "localhost:123456", "[::2]", "::1", "evil.example"] {
            assert!(!host_allowed(Some(foreign)), "{foreign}");
        }
        assert!(host_allowed(Some("[::1]")) && host_allowed(Some("LOCALHOST:1")));
        assert!(!origin_allowed(Some("http://[::1]evil.example")) && !origin_allowed(Some("http://localhost/path")));
    }

    #[test]
    fn a_repeated_host_or_origin_is_refused() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.append(*name, axum::http::HeaderValue::from_static(value));
            }
            map
        };
        assert!(loopback_request(&headers(&[("host", "127.0.0.1:1")])));
        assert!(!loopback_request(&headers(&[("host", "127.0.0.1:1"), ("host", "evil.example")])));
        assert!(!loopback_request(&headers(&[("host", "127.0.0.1:1"), ("origin", "http://localhost"), ("origin", "http://evil.example")])));
    }
}
