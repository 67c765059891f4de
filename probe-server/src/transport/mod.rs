//! Transports that record every frame before anything interprets it.

pub mod http;
pub mod stdio;
