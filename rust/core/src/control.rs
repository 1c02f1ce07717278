//! What the caller keeps of long work: stopping it from another thread (Ctrl-C), a time
//! limit, progress to read while it runs, and the guard that turns a large allocation the
//! machine cannot grant into an error instead of an abort.
//!
//! Growth checks it once per node (and once per feature searched), prediction once per block
//! of rows, pruning once per node and loading once per block of nodes: a few atomic loads and
//! a clock read each, nothing a benchmark can see, and a stop is noticed within milliseconds.

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::error::{CoreError, Result};

/// Buffers from this size on are reserved fallibly before they are filled.
const PROBED_BYTES: usize = 1 << 20;

const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const TIMED_OUT: u8 = 2;
const OUT_OF_MEMORY: u8 = 3;

/// Shared by the thread doing the work and the threads watching it.
#[derive(Debug)]
pub struct Control {
    state: AtomicU8,
    /// Bytes of the allocation that failed ([`OUT_OF_MEMORY`]).
    needed: AtomicUsize,
    /// Units of work done: nodes grown, rows predicted, nodes pruned or loaded.
    done: AtomicU64,
    deadline: Option<(Instant, Duration)>,
    /// While set, the time limit is not enforced (see [`Self::hold_deadline`]).
    held: AtomicBool,
}

impl Default for Control {
    fn default() -> Self {
        Control::new()
    }
}

impl Control {
    /// No time limit; runs until done or cancelled.
    pub const fn new() -> Control {
        Control {
            state: AtomicU8::new(RUNNING),
            needed: AtomicUsize::new(0),
            done: AtomicU64::new(0),
            deadline: None,
            held: AtomicBool::new(false),
        }
    }

    /// Stops with [`CoreError::TimedOut`] once `seconds` have passed from now.
    pub fn with_time_limit(seconds: f64) -> Result<Control> {
        let limit = Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|_| seconds > 0.0)
            .ok_or_else(|| CoreError::InvalidParameter {
                name: "max_time",
                reason: format!("must be a positive number of seconds, got {seconds}"),
            })?;
        Ok(Control {
            deadline: Instant::now().checked_add(limit).map(|at| (at, limit)),
            ..Control::new()
        })
    }

    /// Asks the work to stop; it returns [`CoreError::Cancelled`] at its next check.
    pub fn cancel(&self) {
        let _ =
            self.state
                .compare_exchange(RUNNING, CANCELLED, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Units of work done so far (nodes grown, rows predicted, ...).
    pub fn progress(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Suspends the time limit while `hold` (a cancel still stops the work): for the work
    /// that must finish for any result to exist, such as the optimal search's starting tree,
    /// which the search then returns at the limit if it found nothing better.
    pub(crate) fn hold_deadline(&self, hold: bool) {
        self.held.store(hold, Ordering::Relaxed);
    }

    pub(crate) fn advance(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }

    /// Whether the work should stop (cancelled, out of time, or out of memory).
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        if self.state.load(Ordering::Relaxed) != RUNNING {
            return true;
        }
        match self.deadline {
            Some((at, _)) if !self.held.load(Ordering::Relaxed) && Instant::now() >= at => {
                let _ = self.state.compare_exchange(
                    RUNNING,
                    TIMED_OUT,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
                true
            }
            _ => false,
        }
    }

    /// `Err` with the reason once the work should stop.
    pub fn check(&self) -> Result<()> {
        if !self.stopped() {
            return Ok(());
        }
        Err(match self.state.load(Ordering::Relaxed) {
            TIMED_OUT => CoreError::TimedOut {
                // Only a deadline times out: the 0.0 is never read.
                seconds: self.deadline.map_or(0.0, |(_, limit)| limit.as_secs_f64()),
            },
            OUT_OF_MEMORY => CoreError::OutOfMemory {
                bytes: self.needed.load(Ordering::Relaxed),
            },
            _ => CoreError::Cancelled,
        })
    }

    /// Why a step returned nothing on this control's account (a buffer [`Self::vec`] could
    /// not have, or a stop it saw): [`Self::check`]'s reason. Such a step stops the control
    /// first, so the out-of-memory default is never read.
    pub(crate) fn stop_reason(&self) -> CoreError {
        self.check()
            .err()
            .unwrap_or(CoreError::OutOfMemory { bytes: 0 })
    }

    /// Records that `bytes` could not be allocated: the work stops with
    /// [`CoreError::OutOfMemory`].
    fn out_of_memory(&self, bytes: usize) {
        self.needed.store(bytes, Ordering::Relaxed);
        self.state.store(OUT_OF_MEMORY, Ordering::Relaxed);
    }

    /// `v` with room for `additional` more items, or `None` (and the work stopped) when the
    /// memory cannot be had: Rust aborts the process on a failed allocation, so every buffer
    /// that grows with the data is reserved here first.
    pub(crate) fn reserve<T>(&self, v: &mut Vec<T>, additional: usize) -> Option<()> {
        match v.try_reserve(additional) {
            Ok(()) => Some(()),
            Err(e) => {
                self.refused::<T>(additional, e);
                None
            }
        }
    }

    /// An empty vector with room for `n` items (see [`Self::reserve`]).
    pub(crate) fn vec<T>(&self, n: usize) -> Option<Vec<T>> {
        let mut v = Vec::new();
        self.reserve(&mut v, n)?;
        Some(v)
    }

    /// `n` copies of `x` (see [`Self::reserve`]). A large buffer's memory is probed
    /// fallibly, then taken by `vec!`, which for zeros asks the system for zeroed pages
    /// instead of writing them (gigabyte outputs would otherwise be written twice); a small
    /// one is not worth the probe (one-row predictions are a few microseconds).
    pub(crate) fn filled<T: Clone>(&self, n: usize, x: T) -> Option<Vec<T>> {
        if n.saturating_mul(std::mem::size_of::<T>()) >= PROBED_BYTES {
            drop(self.vec::<T>(n)?);
        }
        Some(vec![x; n])
    }

    fn refused<T>(&self, n: usize, _: TryReserveError) {
        self.out_of_memory(n.saturating_mul(std::mem::size_of::<T>()));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_control_says_so() {
        let c = Control::new();
        assert!(c.check().is_ok());
        c.cancel();
        assert_eq!(c.check(), Err(CoreError::Cancelled));
    }

    #[test]
    fn a_time_limit_expires() {
        let c = Control::with_time_limit(1e-9).unwrap();
        std::thread::sleep(Duration::from_millis(1));
        assert!(matches!(c.check(), Err(CoreError::TimedOut { .. })));
        assert!(Control::with_time_limit(0.0).is_err());
        assert!(Control::with_time_limit(f64::NAN).is_err());
        assert!(Control::with_time_limit(-1.0).is_err());
    }

    #[test]
    fn an_impossible_allocation_is_an_error() {
        let c = Control::new();
        assert!(c.vec::<u64>(usize::MAX / 4).is_none());
        assert!(matches!(c.check(), Err(CoreError::OutOfMemory { bytes }) if bytes > 0));
        // The first reason sticks: a later cancel does not hide it.
        c.cancel();
        assert!(matches!(c.check(), Err(CoreError::OutOfMemory { .. })));
    }
}
