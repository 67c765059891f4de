//! The run pipelines, above the harness: the reference client's runs (`reference`) and the
//! self-test made of them (`self_test`), and a real client's runs (`client`, with its sign-in,
//! `sign_in`), each in a session (`session`: scratch, model stub and HTTP server).

pub mod client;
pub mod reference;
pub mod self_test;
pub mod session;
