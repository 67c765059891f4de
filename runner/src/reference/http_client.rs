//! The reference client's HTTP layer: rmcp's reqwest client, with the HTTP-level ablations applied
//! (no `MCP-Protocol-Version` header, no standalone GET stream, no DELETE at the end).

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits};
use sse_stream::Sse;

use super::ablation::Ablation;

#[derive(Clone)]
pub struct AblatingHttpClient {
    inner: reqwest::Client,
    ablation: Option<Ablation>,
}

impl AblatingHttpClient {
    pub fn new(ablation: Option<Ablation>) -> Self {
        // As rmcp's own default: no idle pooling, which avoids 40 ms delayed-ACK stalls on reuse.
        let inner = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap_or_default();
        AblatingHttpClient { inner, ablation }
    }

    fn headers(&self, mut headers: HashMap<HeaderName, HeaderValue>) -> HashMap<HeaderName, HeaderValue> {
        if self.ablation == Some(Ablation::NoProtocolVersionHeader) {
            headers.retain(|name, _| !name.as_str().eq_ignore_ascii_case("mcp-protocol-version"));
        }
        headers
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
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.inner.post_message(uri, message, session_id, auth_header, self.headers(custom_headers)).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.inner.post_message_with_response_limits(uri, message, session_id, auth_header, self.headers(custom_headers), limits).await
    }

    async fn delete_session(&self, uri: Arc<str>, session_id: Arc<str>, auth_header: Option<String>, custom_headers: HashMap<HeaderName, HeaderValue>) -> Result<(), Error> {
        if self.ablation == Some(Ablation::NoDelete) {
            return Ok(());
        }
        self.inner.delete_session(uri, session_id, auth_header, self.headers(custom_headers)).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        if self.ablation == Some(Ablation::NoGetStream) {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        self.inner.get_stream(uri, session_id, last_event_id, auth_header, self.headers(custom_headers)).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        if self.ablation == Some(Ablation::NoGetStream) {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        self.inner.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth_header, self.headers(custom_headers), max_sse_event_size).await
    }
}
