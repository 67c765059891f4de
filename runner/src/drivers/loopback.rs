//! HTTP on this machine as the harness's own OAuth parties speak it (the person who logs in, the
//! reference client's sign-in): a client that follows no redirect by itself (each redirect is a
//! step to record) and uses no proxy, and the parts of a URL they build others from.

use std::time::Duration;

/// A client that follows no redirect and uses no proxy; each request may take `timeout`.
pub fn client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).timeout(timeout).build().unwrap_or_default()
}

/// The origin of a URL (`scheme://host:port`), or "" for what is not a URL.
pub fn origin(url: &str) -> String {
    reqwest::Url::parse(url).map(|u| u.origin().ascii_serialization()).unwrap_or_default()
}

/// The path of a URL without its trailing slash ("" for the root), or "" for what is not a URL.
pub fn path(url: &str) -> String {
    reqwest::Url::parse(url).map(|u| u.path().trim_end_matches('/').to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_splits_into_origin_and_path() {
        assert_eq!(origin("http://127.0.0.1:5/mcp?x=1"), "http://127.0.0.1:5");
        assert_eq!(origin("http://127.0.0.1:5?x=1"), "http://127.0.0.1:5");
        assert_eq!(origin("not a url"), "");
        assert_eq!(path("http://127.0.0.1:5/mcp/?x"), "/mcp");
        assert_eq!(path("http://127.0.0.1:5"), "");
        assert_eq!(path("http://127.0.0.1:5/tenant/a#frag"), "/tenant/a");
    }
}
