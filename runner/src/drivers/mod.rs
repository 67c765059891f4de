//! What plays the other side of a run: the reference client and hosts (the ground truth), the
//! terminal driver (a person at a host's terminal UI) and the scripted model stub (the model an
//! agent host talks to).

pub mod loopback;
pub mod person;
pub mod stub;
pub mod terminal;
