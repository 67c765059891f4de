//! The person who logs in: handed the authorization URL a client opened (or printed), they open
//! it at the loopback authorization server, approve on its consent page, and follow the redirect
//! to the client's loopback callback. Each step is reported to the authorization server
//! (`/person`), so the journal shows what the harness did beside what the client did.
//!
//! The person follows nothing that leaves this machine: an authorization URL or a redirect to a
//! host other than loopback is refused.

use probe_server::auth::server::loopback_redirect;
use probe_server::auth::{APPROVE_FIELD, PERSON_PATH};

/// How long the person keeps trying a callback that refuses the connection.
const CALLBACK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);
/// How long one step may take.
const STEP_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("the URL {0:?} is not on this machine: the person does not open it")]
    NotLoopback(String),
    #[error("the authorization server's page at {url} was not a consent form (HTTP {status})")]
    NoConsentForm { url: String, status: u16 },
    #[error("approving did not redirect (HTTP {0})")]
    NoRedirect(u16),
    #[error("the request to {url} failed")]
    Request {
        url: String,
        #[source]
        source: reqwest::Error,
    },
}

/// What the person saw at the end: the callback's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    pub callback_status: u16,
}

/// The value of the consent form's hidden field.
fn pending_request(page: &str) -> Option<String> {
    let marker = format!("name=\"{APPROVE_FIELD}\" value=\"");
    let start = page.find(&marker)? + marker.len();
    Some(page[start..].split('"').next()?.to_string())
}

/// Logs in at `authorize_url`: opens it, approves, follows the redirect to the callback.
pub async fn log_in(authorize_url: &str) -> Result<Delivered, LoginError> {
    if !loopback_redirect(authorize_url) {
        return Err(LoginError::NotLoopback(authorize_url.to_string()));
    }
    let http = super::loopback::client(STEP_WAIT);
    let server = super::loopback::origin(authorize_url);
    let report = |fields: Vec<(&'static str, String)>| {
        let (http, server) = (http.clone(), server.clone());
        async move {
            let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
            let _ = http.post(format!("{server}{PERSON_PATH}")).header("content-type", "application/x-www-form-urlencoded").body(body).send().await;
        }
    };
    report(vec![("step", "handed".into()), ("url", authorize_url.to_string())]).await;
    let request = |url: &str, source| LoginError::Request { url: url.to_string(), source };
    let page = http.get(authorize_url).send().await.map_err(|e| request(authorize_url, e))?;
    let status = page.status().as_u16();
    let text = page.text().await.map_err(|e| request(authorize_url, e))?;
    let Some(pending) = pending_request(&text) else {
        return Err(LoginError::NoConsentForm { url: authorize_url.to_string(), status });
    };
    let approve_url = format!("{server}{}", probe_server::auth::APPROVE_PATH);
    let body = form_urlencoded::Serializer::new(String::new()).append_pair(APPROVE_FIELD, &pending).finish();
    let approved = http.post(&approve_url).header("content-type", "application/x-www-form-urlencoded").body(body).send().await.map_err(|e| request(&approve_url, e))?;
    let location = approved.headers().get("location").and_then(|l| l.to_str().ok()).map(str::to_string);
    let Some(callback) = location.filter(|_| approved.status().is_redirection()) else {
        return Err(LoginError::NoRedirect(approved.status().as_u16()));
    };
    if !loopback_redirect(&callback) {
        report(vec![("step", "refused".into()), ("url", callback.clone())]).await;
        return Err(LoginError::NotLoopback(callback));
    }
    // A person takes a moment: a callback that is not listening yet (a host may print its URL
    // before it opens its callback) is tried again for a while.
    let mut delivered = http.get(&callback).send().await;
    let started = std::time::Instant::now();
    while delivered.as_ref().is_err_and(|e| e.is_connect()) && started.elapsed() < CALLBACK_PATIENCE {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        delivered = http.get(&callback).send().await;
    }
    let callback_status = match &delivered {
        Ok(response) => response.status().as_u16(),
        Err(_) => 0,
    };
    report(vec![("step", "delivered".into()), ("request", pending), ("status", callback_status.to_string())]).await;
    delivered.map_err(|e| request(&callback, e))?;
    Ok(Delivered { callback_status })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consent_forms_pending_request_is_read() {
        let page = format!("<form><input type=\"hidden\" name=\"{APPROVE_FIELD}\" value=\"req-1\"></form>");
        assert_eq!(pending_request(&page).as_deref(), Some("req-1"));
        assert_eq!(pending_request("<p>no form</p>"), None);
    }

    #[tokio::test]
    async fn a_url_off_this_machine_is_not_opened() {
        assert!(matches!(log_in("https://example.com/authorize").await, Err(LoginError::NotLoopback(_))));
    }
}
