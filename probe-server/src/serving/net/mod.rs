//! The network floor both HTTP servers stand on: their connections, served by hyper directly so
//! that nothing a client sends is lost (`connections`), and the loopback checks (`loopback`).

pub mod connections;
pub mod loopback;
