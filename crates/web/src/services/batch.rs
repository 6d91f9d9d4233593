//! Writes that ride on a read, kept off the request: visit statistics and the cars a visitor
//! viewed. A page hands its event to a bounded channel and answers at once; one task per node
//! and kind writes the events, up to 500 per transaction and at least every half second. When
//! the channel is full (the database cannot keep up) events are dropped and counted rather than
//! slowing pages: both are conveniences, never money or a visitor's own words.
//!
//! What reads them back waits for its node's batch first ([`Batcher::flush`]): the viewed cars
//! of 浏览记录, the device history a sign-in takes over, a history cleared. A view written on
//! another node in the last half second may be missing from a page shown meanwhile.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use store::{DbError, StatEvent, Store, ViewEvent};
use tokio::sync::{mpsc, oneshot};

/// Events waiting to be written, at most.
const QUEUE: usize = 10_000;
/// Events per write, at most.
const BATCH: usize = 500;
/// The longest an event waits for others to join its write.
const LINGER: Duration = Duration::from_millis(500);

/// An event written in batches.
pub trait Batch: Send + Sized + 'static {
    /// What the log calls it.
    const NAME: &'static str;

    /// Writes `batch` (one transaction or a few statements).
    fn write(store: &Store, batch: &[Self]) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl Batch for StatEvent {
    const NAME: &'static str = "statistics";

    fn write(store: &Store, batch: &[StatEvent]) -> impl Future<Output = Result<(), DbError>> + Send {
        store.insert_stat_events(batch)
    }
}

impl Batch for ViewEvent {
    const NAME: &'static str = "viewed cars";

    fn write(store: &Store, batch: &[ViewEvent]) -> impl Future<Output = Result<(), DbError>> + Send {
        store.record_views(batch)
    }
}

enum Msg<E> {
    Event(E),
    /// Answered once every event sent before it is written (or failed to be).
    Flush(oneshot::Sender<()>),
}

/// The sending side, held by the app.
#[derive(Debug)]
pub struct Batcher<E> {
    tx: Option<mpsc::Sender<Msg<E>>>,
    dropped: AtomicU64,
}

impl<E: Batch> Batcher<E> {
    /// Starts the writer on the current Tokio runtime; without one, events are dropped.
    pub fn spawn(store: Store) -> Batcher<E> {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return Batcher { tx: None, dropped: AtomicU64::new(0) };
        };
        let (tx, rx) = mpsc::channel(QUEUE);
        handle.spawn(write_batches(store, rx));
        Batcher { tx: Some(tx), dropped: AtomicU64::new(0) }
    }

    /// Queues an event without waiting.
    pub fn record(&self, event: E) {
        let sent = self.tx.as_ref().is_some_and(|tx| tx.try_send(Msg::Event(event)).is_ok());
        if !sent {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_power_of_two() {
                tracing::warn!(dropped = n, kind = E::NAME, "write queue full; events dropped");
            }
        }
    }

    /// Waits until every event this node queued before the call is written.
    pub async fn flush(&self) {
        let Some(tx) = &self.tx else { return };
        let (done, written) = oneshot::channel();
        if tx.send(Msg::Flush(done)).await.is_ok() {
            // A writer gone (the runtime stopping) has nothing more to write.
            let _ = written.await;
        }
    }

    /// Events dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

async fn write_batches<E: Batch>(store: Store, mut rx: mpsc::Receiver<Msg<E>>) {
    while let Some(first) = rx.recv().await {
        let mut batch = Vec::new();
        let mut flushes = Vec::new();
        match first {
            Msg::Event(e) => batch.push(e),
            Msg::Flush(done) => flushes.push(done),
        }
        let deadline = tokio::time::sleep(LINGER);
        tokio::pin!(deadline);
        // A flush ends the wait: whoever asked is about to read what the batch holds.
        while flushes.is_empty() && batch.len() < BATCH {
            tokio::select! {
                next = rx.recv() => match next {
                    Some(Msg::Event(e)) => batch.push(e),
                    Some(Msg::Flush(done)) => flushes.push(done),
                    None => break,
                },
                () = &mut deadline => break,
            }
        }
        if !batch.is_empty()
            && let Err(e) = E::write(&store, &batch).await
        {
            tracing::error!(error = %e, events = batch.len(), kind = E::NAME, "could not write a batch");
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}
