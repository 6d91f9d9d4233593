//! Visit statistics written in batches: requests hand events to a bounded channel and
//! return at once; one task per node writes them, up to 500 per transaction and at least every
//! half second. When the channel is full (the database cannot keep up) events are dropped and
//! counted rather than slowing pages.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use store::{StatEvent, Store};
use tokio::sync::mpsc;

/// Events waiting to be written, at most.
const QUEUE: usize = 10_000;
/// Events per write, at most.
const BATCH: usize = 500;

/// The sending side, held by the app.
#[derive(Debug)]
pub struct StatsSink {
    tx: Option<mpsc::Sender<StatEvent>>,
    dropped: AtomicU64,
}

impl StatsSink {
    /// Starts the writer on the current Tokio runtime; without one, events are dropped.
    pub fn spawn(store: Store) -> StatsSink {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return StatsSink { tx: None, dropped: AtomicU64::new(0) };
        };
        let (tx, rx) = mpsc::channel(QUEUE);
        handle.spawn(write_batches(store, rx));
        StatsSink { tx: Some(tx), dropped: AtomicU64::new(0) }
    }

    /// Queues an event without waiting.
    pub fn record(&self, event: StatEvent) {
        let sent = self.tx.as_ref().is_some_and(|tx| tx.try_send(event).is_ok());
        if !sent {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!(dropped = n, "statistics queue full; events dropped");
            }
        }
    }

    /// Events dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

async fn write_batches(store: Store, mut rx: mpsc::Receiver<StatEvent>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        let deadline = tokio::time::sleep(Duration::from_millis(500));
        tokio::pin!(deadline);
        while batch.len() < BATCH {
            tokio::select! {
                next = rx.recv() => match next {
                    Some(e) => batch.push(e),
                    None => break,
                },
                () = &mut deadline => break,
            }
        }
        if let Err(e) = store.insert_stat_events(&batch).await {
            tracing::error!(error = %e, events = batch.len(), "could not write statistics");
        }
    }
}
