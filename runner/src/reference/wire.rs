//! A client transport wrapper that rewrites outgoing frames for the ablations that live on the
//! wire (a dropped notification, a stripped `_meta` key, an altered `requestState`). The rmcp
//! client underneath stays correct; only what leaves it is changed.

use std::future::Future;

use futures::future::Either;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use super::ablation::Ablation;

const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";

/// Wraps any client transport and applies one ablation's rewrite to outgoing frames.
pub struct Rewriting<T> {
    inner: T,
    ablation: Option<Ablation>,
}

impl<T> Rewriting<T> {
    pub fn new(inner: T, ablation: Option<Ablation>) -> Self {
        Rewriting { inner, ablation }
    }
}

/// Applies `ablation` to one outgoing frame; `None` means the frame is dropped.
pub fn rewrite(ablation: Ablation, mut frame: Value) -> Option<Value> {
    let method = frame.get("method").and_then(Value::as_str).unwrap_or("").to_string();
    let params = frame.get_mut("params");
    match (ablation, params) {
        // Replaced rather than dropped: rmcp's HTTP client expects to send a notification here.
        (Ablation::SkipInitialized, _) if method == "notifications/initialized" => {
            return Some(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))
        }
        (Ablation::BlankClientInfo, Some(params)) => {
            if let Some(name) = params.pointer_mut("/clientInfo/name") {
                *name = Value::from("");
            }
            if let Some(meta) = params.get_mut("_meta").and_then(|m| m.get_mut(CLIENT_INFO_META)) {
                meta["name"] = Value::from("");
            }
        }
        (Ablation::DropClientInfoMeta, Some(params)) if method != "server/discover" => {
            if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
                meta.remove(CLIENT_INFO_META);
            }
        }
        (Ablation::StripProgressToken, Some(params)) if method == "tools/call" => {
            if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
                meta.remove("progressToken");
            }
        }
        (Ablation::AlterRequestState, Some(params)) if method == "tools/call" => {
            if let Some(Value::String(state)) = params.get_mut("requestState") {
                // A decomposing re-encode: the kind of change a careless client makes.
                *state = state.replace('é', "e\u{301}");
            }
        }
        _ => {}
    }
    Some(frame)
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Rewriting<T> {
    type Error = T::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let Some(ablation) = self.ablation else { return Either::Left(self.inner.send(item)) };
        let rewritten = serde_json::to_value(&item).ok().map(|v| rewrite(ablation, v));
        match rewritten {
            Some(None) => Either::Right(std::future::ready(Ok(()))),
            Some(Some(value)) => match serde_json::from_value::<TxJsonRpcMessage<RoleClient>>(value) {
                Ok(item) => Either::Left(self.inner.send(item)),
                Err(_) => Either::Left(self.inner.send(item)),
            },
            None => Either::Left(self.inner.send(item)),
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rewrites_touch_only_their_frames() {
        let init = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(rewrite(Ablation::SkipInitialized, init.clone()).unwrap()["method"], "notifications/roots/list_changed");
        assert_eq!(rewrite(Ablation::SkipBlobRead, init.clone()), Some(init));

        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "t", "requestState": "é!", "_meta": {"progressToken": 1, CLIENT_INFO_META: {"name": "n"}}}});
        let altered = rewrite(Ablation::AlterRequestState, call.clone()).unwrap();
        assert_eq!(altered["params"]["requestState"], json!("e\u{301}!"));
        let stripped = rewrite(Ablation::StripProgressToken, call.clone()).unwrap();
        assert!(stripped["params"]["_meta"].get("progressToken").is_none());
        let no_info = rewrite(Ablation::DropClientInfoMeta, call.clone()).unwrap();
        assert!(no_info["params"]["_meta"].get(CLIENT_INFO_META).is_none());
        let blank = rewrite(Ablation::BlankClientInfo, call).unwrap();
        assert_eq!(blank["params"]["_meta"][CLIENT_INFO_META]["name"], json!(""));
    }
}
