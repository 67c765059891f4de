//! One memory budget for the large frames this process reads and parses, whatever the transport
//! and however many sessions or connections there are. Parsing multiplies a frame of many small
//! values (about 27 times for one of small objects), and 30 such bodies at once took 1.2 GB: a
//! frame over [`LARGE`] now waits for room. At most [`READING_BUDGET`] bytes of large bodies are
//! held at once, and [`PARSED_AT_ONCE`] large frames are parsed and served at a time (the tap's
//! parse, the SDK's, and the request the SDK holds until it has answered).
//! Frames up to [`LARGE`], which every real client sends, never wait.

use tokio::sync::{Semaphore, SemaphorePermit};

/// The size above which a frame counts against the budget.
pub const LARGE: usize = 64 * 1024;

/// How many bytes of large request bodies may be held at once, in all.
pub const READING_BUDGET: usize = 32 * 1024 * 1024;

/// The budget's unit: a permit is a KiB.
const UNIT: usize = 1024;

static READING: Semaphore = Semaphore::const_new(READING_BUDGET / UNIT);
/// How many large frames may be parsed and served at once.
pub const PARSED_AT_ONCE: usize = 2;

static PARSING: Semaphore = Semaphore::const_new(PARSED_AT_ONCE);

/// Room to hold a large body of up to `bytes` (none needed for a small one).
pub async fn reading(bytes: usize) -> Option<SemaphorePermit<'static>> {
    let units = bytes.min(READING_BUDGET).div_ceil(UNIT) as u32;
    (bytes > LARGE).then_some(())?;
    READING.acquire_many(units).await.ok()
}

/// The turn to parse and serve a frame of `bytes` (none needed for a small one): held until its
/// answer has gone out.
pub async fn parsing(bytes: usize) -> Option<SemaphorePermit<'static>> {
    (bytes > LARGE).then_some(())?;
    PARSING.acquire().await.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn small_frames_never_wait_and_large_ones_take_turns() {
        assert!(reading(LARGE).await.is_none() && parsing(LARGE).await.is_none());
        let mut turns = Vec::new();
        for _ in 0..PARSED_AT_ONCE {
            turns.push(parsing(LARGE + 1).await.expect("a large frame takes a turn"));
        }
        let next = tokio::time::timeout(std::time::Duration::from_millis(50), parsing(LARGE + 1)).await;
        assert!(next.is_err(), "one more large frame waits while the others are served");
        // A small frame meanwhile goes straight on.
        assert!(parsing(10).await.is_none());
        turns.pop();
        assert!(parsing(LARGE + 1).await.is_some(), "its turn comes when one is done");
    }
}
