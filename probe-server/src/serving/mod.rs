//! Serving: the network floor both HTTP servers stand on (`net`), the stdio and Streamable HTTP
//! taps that journal every frame (`transport`), the OAuth authorization server of the auth
//! variants (`auth`), the fetch trap (`fetch_trap`) and the rmcp handler (`server`).

pub mod auth;
pub mod fetch_trap;
pub mod net;
pub mod server;
pub mod transport;
