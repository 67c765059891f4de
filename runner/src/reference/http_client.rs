//! The reference client's HTTP layer: rmcp's reqwest client, with the HTTP-level ablations applied
//! (no `MCP-Protocol-Version` header, no standalone GET stream, no DELETE at the end, a request
//! without its session id or standard headers, a reconnection without `Last-Event-ID`, a stream
//! given up at a priming event, an answer refused for being JSON, a POST that does not accept an
//! event stream, a session id invented or required, a stream refused outside a session), and OAuth: the token of the [`Authorizer`] on every request, renewed on a 401
//! or a 403 `insufficient_scope`.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::StreamExt;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits};
use sse_stream::Sse;

use super::ablation::Ablation;
use super::auth::Authorizer;

/// The session id the `invents-session-id` ablation sends when the server issued none.
pub const INVENTED_SESSION: &str = "reference-invented-session";

#[derive(Clone)]
pub struct AblatingHttpClient {
    inner: reqwest::Client,
    ablation: Option<Ablation>,
    /// Answers a 401 or a 403 `insufficient_scope` (the auth variants), and holds the token.
    authorizer: Arc<Authorizer>,
}

impl AblatingHttpClient {
    pub fn new(ablation: Option<Ablation>, authorizer: Arc<Authorizer>) -> Self {
        // As rmcp's own default: no idle pooling, which avoids 40 ms delayed-ACK stalls on reuse.
        let inner = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap_or_default();
        AblatingHttpClient { inner, ablation, authorizer }
    }

    /// Sends with the token held (in the `Authorization` header, or under `token-in-query` in
    /// the query string), and on a 401 or a 403 `insufficient_scope` lets the authorizer renew
    /// it and sends once more.
    async fn authorized<T, F, Fut>(&self, uri: Arc<str>, send: F) -> Result<T, Error>
    where
        F: Fn(Arc<str>, Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<T, Error>>,
    {
        let attempt = |token: Option<String>| {
            let (uri, header) = match (&token, self.ablation) {
                (Some(token), Some(Ablation::TokenInQuery)) => (Arc::from(format!("{uri}?access_token={token}")), None),
                _ => (uri.clone(), token),
            };
            send(uri, header)
        };
        let token = self.authorizer.token().await;
        let renewed = match attempt(token.clone()).await {
            Err(StreamableHttpError::AuthRequired(required)) => self.authorizer.unauthorized(&required.www_authenticate_header, token.as_deref()).await,
            Err(StreamableHttpError::InsufficientScope(wider)) => self.authorizer.insufficient_scope(&wider.www_authenticate_header, token.as_deref()).await,
            other => return other,
        };
        renewed.map_err(|e| StreamableHttpError::UnexpectedServerResponse(format!("authorization failed: {}", super::auth::explain(&e)).into()))?;
        attempt(self.authorizer.token().await).await
    }

    fn headers(&self, mut headers: HashMap<HeaderName, HeaderValue>) -> HashMap<HeaderName, HeaderValue> {
        if self.ablation == Some(Ablation::NoProtocolVersionHeader) {
            headers.retain(|name, _| !name.as_str().eq_ignore_ascii_case("mcp-protocol-version"));
        }
        headers
    }

    /// The headers and session id of one POST, with the message-specific ablations applied.
    fn post_parts(
        &self,
        message: &ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> (Option<Arc<str>>, HashMap<HeaderName, HeaderValue>) {
        let mut headers = self.headers(headers);
        if !matches!(
            self.ablation,
            Some(
                Ablation::NoSessionHeader
                    | Ablation::NoStandardHeaders
                    | Ablation::StaleVersionHeader
                    | Ablation::NoTaskNameHeader
                    | Ablation::InventsSessionId
                    | Ablation::VersionHeaderOnlyInSession
            )
        ) {
            return (session_id, headers);
        }
        let method = serde_json::to_value(message).ok().and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_string));
        let mut session_id = session_id;
        match (self.ablation, method.as_deref()) {
            (Some(Ablation::InventsSessionId), Some(method)) if session_id.is_none() && method != "initialize" => session_id = Some(INVENTED_SESSION.into()),
            (Some(Ablation::VersionHeaderOnlyInSession), _) if session_id.is_none() => headers.retain(|name, _| !name.as_str().eq_ignore_ascii_case("mcp-protocol-version")),
            (Some(Ablation::NoSessionHeader), Some("logging/setLevel")) => session_id = None,
            (Some(Ablation::NoStandardHeaders), Some("prompts/get")) => headers.retain(|name, _| !matches!(name.as_str(), "mcp-method" | "mcp-name")),
            (Some(Ablation::StaleVersionHeader), Some("prompts/get")) => {
                headers.insert(HeaderName::from_static("mcp-protocol-version"), HeaderValue::from_static("2025-11-25"));
            }
            (Some(Ablation::NoTaskNameHeader), Some("tasks/get" | "tasks/update" | "tasks/cancel")) => headers.retain(|name, _| name.as_str() != "mcp-name"),
            _ => {}
        }
        (session_id, headers)
    }

    /// Under `choke-on-priming`, the stream ends at its first event with empty data.
    fn sse(&self, stream: BoxStream<'static, Result<Sse, SseError>>) -> BoxStream<'static, Result<Sse, SseError>> {
        if self.ablation != Some(Ablation::ChokeOnPriming) {
            return stream;
        }
        let is_priming = |event: &Result<Sse, SseError>| event.as_ref().is_ok_and(|e| e.data.as_deref().is_none_or(str::is_empty) && e.id.is_some());
        stream.take_while(move |event| std::future::ready(!is_priming(event))).boxed()
    }

    /// The answer as the ablated client takes it: under `choke-on-json` a JSON body is refused.
    fn post_response(&self, response: StreamableHttpPostResponse) -> Result<StreamableHttpPostResponse, Error> {
        match response {
            StreamableHttpPostResponse::Sse(_, None) if self.ablation == Some(Ablation::StreamNeedsSession) => {
                Err(StreamableHttpError::UnexpectedServerResponse("an event stream that no session holds".into()))
            }
            StreamableHttpPostResponse::Sse(stream, session) => Ok(StreamableHttpPostResponse::Sse(self.sse(stream), session)),
            StreamableHttpPostResponse::Json(..) if self.ablation == Some(Ablation::ChokeOnJson) => {
                Err(StreamableHttpError::UnexpectedContentType(Some("application/json".into())))
            }
            other => Ok(other),
        }
    }

    /// Under `accept-json-only`: the POST sent by hand with `Accept: application/json` alone
    /// (rmcp's own client always asks for both), and any answer but a success taken as the end.
    async fn post_accepting_json_only(
        &self,
        uri: &str,
        message: &ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let body = serde_json::to_vec(message).map_err(StreamableHttpError::Deserialize)?;
        let mut request = self.inner.post(uri).header(http::header::ACCEPT, "application/json").header(http::header::CONTENT_TYPE, "application/json").body(body);
        if let Some(session) = session_id {
            request = request.header("mcp-session-id", session.as_ref());
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        Err(StreamableHttpError::UnexpectedServerResponse(format!("HTTP {} to a POST that accepts only JSON", response.status()).into()))
    }

    /// A POST sent (see [`Self::authorized`]) and its answer as the ablated client takes it.
    /// Under `resends-accepted` a notification answered 202 is taken as not delivered and sent
    /// once more.
    async fn sent_once_or_twice<F, Fut>(&self, message: &ClientJsonRpcMessage, uri: Arc<str>, send: F) -> Result<StreamableHttpPostResponse, Error>
    where
        F: Fn(Arc<str>, Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<StreamableHttpPostResponse, Error>>,
    {
        let sent = self.authorized(uri.clone(), &send).await;
        let accepted = matches!(sent, Ok(StreamableHttpPostResponse::Accepted));
        if accepted && self.ablation == Some(Ablation::ResendsAccepted) && matches!(message, ClientJsonRpcMessage::Notification(_)) {
            return self.authorized(uri, send).await.and_then(|r| self.post_response(r));
        }
        sent.and_then(|r| self.post_response(r))
    }

    fn last_event_id(&self, last_event_id: Option<String>) -> Option<String> {
        last_event_id.filter(|_| self.ablation != Some(Ablation::NoResumption))
    }
}

type Error = StreamableHttpError<reqwest::Error>;

impl StreamableHttpClient for AblatingHttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let (session_id, headers) = self.post_parts(&message, session_id, custom_headers);
        if self.ablation == Some(Ablation::AcceptJsonOnly) {
            return self.post_accepting_json_only(&uri, &message, session_id, headers).await;
        }
        let send = |uri: Arc<str>, token: Option<String>| self.inner.post_message(uri, message.clone(), session_id.clone(), token, headers.clone());
        self.sent_once_or_twice(&message, uri, send).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let (session_id, headers) = self.post_parts(&message, session_id, custom_headers);
        if self.ablation == Some(Ablation::AcceptJsonOnly) {
            return self.post_accepting_json_only(&uri, &message, session_id, headers).await;
        }
        let send = |uri: Arc<str>, token: Option<String>| self.inner.post_message_with_response_limits(uri, message.clone(), session_id.clone(), token, headers.clone(), limits);
        self.sent_once_or_twice(&message, uri, send).await
    }

    async fn delete_session(&self, uri: Arc<str>, session_id: Arc<str>, _auth_header: Option<String>, custom_headers: HashMap<HeaderName, HeaderValue>) -> Result<(), Error> {
        if self.ablation == Some(Ablation::NoDelete) {
            return Ok(());
        }
        let headers = self.headers(custom_headers);
        self.authorized(uri, |uri, token| self.inner.delete_session(uri, session_id.clone(), token, headers.clone())).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        if self.ablation == Some(Ablation::NoGetStream) {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let (last_event_id, headers) = (self.last_event_id(last_event_id), self.headers(custom_headers));
        self.authorized(uri, |uri, token| self.inner.get_stream(uri, session_id.clone(), last_event_id.clone(), token, headers.clone())).await.map(|s| self.sse(s))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        if self.ablation == Some(Ablation::NoGetStream) {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let (last_event_id, headers) = (self.last_event_id(last_event_id), self.headers(custom_headers));
        self.authorized(uri, |uri, token| self.inner.get_stream_with_max_sse_event_size(uri, session_id.clone(), last_event_id.clone(), token, headers.clone(), max_sse_event_size))
            .await
            .map(|s| self.sse(s))
    }
}
