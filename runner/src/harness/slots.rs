//! How many runs go at once, and which goes next.
//!
//! A command (`probe`, `matrix refresh`, `bench`) has one [`Slots`]: `--jobs` runs at once across
//! every client and pass it probes. Each client adds its own limit (`launch.max_parallel`). A run
//! asks for a slot with its place (0 first: the kinds of run that take longest); a free slot goes
//! to the waiting run of the lowest place whose client has room, the earliest among equals. So a
//! long run of one pass does not wait behind the short runs of another, and the last run to finish
//! is not a long one that started late. The runs that mostly wait (a call held for seconds, a
//! discovery never answered, stopped at their bound) hold at most half the slots (at least one):
//! when they held every slot, the machine idled while the runs that compute waited.

use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// The runs at once across one command, and the runs waiting for one.
pub struct Slots {
    all: Arc<Semaphore>,
    /// The share of `all` the runs that mostly wait may hold.
    waiting_out: Arc<Semaphore>,
    waiting: Mutex<Waiting>,
    /// Told when a slot is freed or the waiting runs change.
    changed: Notify,
}

#[derive(Default)]
struct Waiting {
    runs: Vec<Waiter>,
    arrivals: u64,
}

struct Waiter {
    place: usize,
    arrival: u64,
    client: Arc<Semaphore>,
    /// A run that mostly waits: it needs a permit of [`Slots::waiting_out`] too.
    waits: bool,
}

impl Waiter {
    fn has_room(&self, waiting_out: &Semaphore) -> bool {
        self.client.available_permits() > 0 && (!self.waits || waiting_out.available_permits() > 0)
    }
}

impl Slots {
    pub fn new(jobs: usize) -> Arc<Slots> {
        let jobs = jobs.max(1);
        Arc::new(Slots { all: Arc::new(Semaphore::new(jobs)), waiting_out: Arc::new(Semaphore::new(jobs.div_ceil(2))), waiting: Mutex::default(), changed: Notify::new() })
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The slot, if the waiter that arrived `arrival`-th is the one to go now and a slot is free.
    fn try_take(self: &Arc<Self>, arrival: u64) -> Option<Slot> {
        let mut waiting = self.waiting();
        let next = waiting.runs.iter().filter(|w| w.has_room(&self.waiting_out)).min_by_key(|w| (w.place, w.arrival))?;
        if next.arrival != arrival {
            return None;
        }
        let all = self.all.clone().try_acquire_owned().ok()?;
        let client = next.client.clone().try_acquire_owned().ok()?;
        let waits = match next.waits {
            true => Some(self.waiting_out.clone().try_acquire_owned().ok()?),
            false => None,
        };
        waiting.runs.retain(|w| w.arrival != arrival);
        Some(Slot { permits: Some((client, all, waits)), slots: self.clone() })
    }
}

/// A client's share of a command's [`Slots`].
#[derive(Clone)]
pub struct RunSlots {
    slots: Arc<Slots>,
    client: Arc<Semaphore>,
}

impl RunSlots {
    /// The client's own limit is `max_parallel` runs at once (no limit of its own when `None`).
    pub fn new(slots: Arc<Slots>, max_parallel: Option<usize>) -> RunSlots {
        let own = max_parallel.unwrap_or(Semaphore::MAX_PERMITS).max(1);
        RunSlots { slots, client: Arc::new(Semaphore::new(own)) }
    }

    /// Waits for a slot, behind every waiting run of a lower place (and of the same place that
    /// asked earlier) whose client has room; the run holds it until the value is dropped.
    pub async fn take(&self, place: usize) -> Slot {
        self.take_as(place, false).await
    }

    /// [`RunSlots::take`] for a run that mostly waits (stopped at a bound): it also waits for
    /// room in the half of the slots such runs may hold.
    pub async fn take_to_wait(&self, place: usize) -> Slot {
        self.take_as(place, true).await
    }

    async fn take_as(&self, place: usize, waits: bool) -> Slot {
        let arrival = {
            let mut waiting = self.slots.waiting();
            waiting.arrivals += 1;
            let arrival = waiting.arrivals;
            waiting.runs.push(Waiter { place, arrival, client: self.client.clone(), waits });
            arrival
        };
        // Leaving the queue (with the slot, or dropped while waiting) may make another run next.
        let _leave = Leave { slots: &self.slots, arrival };
        loop {
            let changed = self.slots.changed.notified();
            tokio::pin!(changed);
            // Listening before looking: a change between the look and the wait is not missed.
            changed.as_mut().enable();
            if let Some(slot) = self.slots.try_take(arrival) {
                return slot;
            }
            changed.await;
        }
    }
}

struct Leave<'a> {
    slots: &'a Arc<Slots>,
    arrival: u64,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.slots.waiting().runs.retain(|w| w.arrival != self.arrival);
        self.slots.changed.notify_waiters();
    }
}

/// One run's share of the slots; freed when dropped.
pub struct Slot {
    permits: Option<(OwnedSemaphorePermit, OwnedSemaphorePermit, Option<OwnedSemaphorePermit>)>,
    slots: Arc<Slots>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        // The permits go back before the waiting runs look again.
        drop(self.permits.take());
        self.slots.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The order in which runs asking with `places` (one at a time, in that order) get a single
    /// slot that is busy while they all arrive.
    async fn order_served(places: &[usize]) -> Vec<usize> {
        let slots = Slots::new(1);
        let client = RunSlots::new(slots.clone(), None);
        let busy = client.take(0).await;
        let served = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        for (i, &place) in places.iter().enumerate() {
            let (client, served) = (client.clone(), served.clone());
            handles.push(tokio::spawn(async move {
                let _slot = client.take(place).await;
                served.lock().unwrap().push(i);
                tokio::task::yield_now().await;
            }));
            // Every run is waiting before the next asks.
            while slots.waiting().runs.len() < i + 1 {
                tokio::task::yield_now().await;
            }
        }
        drop(busy);
        for handle in handles {
            handle.await.unwrap();
        }
        let order = served.lock().unwrap().clone();
        order
    }

    #[tokio::test]
    async fn a_freed_slot_goes_to_the_lowest_place_then_the_earliest() {
        assert_eq!(order_served(&[2, 0, 1, 0, 2]).await, vec![1, 3, 2, 0, 4]);
    }

    #[tokio::test]
    async fn a_run_whose_client_is_full_does_not_hold_up_the_others() {
        // Two clients, the first allowed one run at a time and already running one (the busy
        // slot): its waiting run of place 0 lets the other client's runs go first.
        let slots = Slots::new(2);
        let (full, other) = (RunSlots::new(slots.clone(), Some(1)), RunSlots::new(slots.clone(), None));
        let busy = full.take(0).await;
        let waiting = tokio::spawn({
            let full = full.clone();
            async move { full.take(0).await }
        });
        while slots.waiting().runs.is_empty() {
            tokio::task::yield_now().await;
        }
        let second = tokio::time::timeout(Duration::from_secs(5), other.take(3)).await.expect("the other client's run gets the free slot");
        drop(second);
        drop(busy);
        tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("the waiting run goes once its client has room").unwrap();
    }

    #[tokio::test]
    async fn the_runs_that_mostly_wait_hold_at_most_half_the_slots() {
        // Four slots: two runs that wait take two; a third waits although two slots are free,
        // and a later run that computes (a later place, too) takes one of them.
        let slots = Slots::new(4);
        let client = RunSlots::new(slots.clone(), None);
        let (first, _second) = (client.take_to_wait(0).await, client.take_to_wait(0).await);
        let third = tokio::spawn({
            let client = client.clone();
            async move { client.take_to_wait(0).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!third.is_finished(), "a third run that waits got a slot beside two");
        assert_eq!(slots.waiting().runs.len(), 1);
        let computing = tokio::time::timeout(Duration::from_secs(5), client.take(3)).await.expect("a run that computes takes a free slot");
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), third).await.expect("the third goes once one of the two ends").unwrap();
        drop(computing);
    }

    #[tokio::test]
    async fn a_run_that_stops_waiting_leaves_its_place() {
        let slots = Slots::new(1);
        let client = RunSlots::new(slots.clone(), None);
        let busy = client.take(0).await;
        let gave_up = tokio::time::timeout(Duration::from_millis(20), client.take(0)).await;
        assert!(gave_up.is_err(), "the slot was busy");
        assert!(slots.waiting().runs.is_empty());
        drop(busy);
        tokio::time::timeout(Duration::from_secs(5), client.take(5)).await.expect("a later place is not held up by one that left");
    }
}
