//! Where a fit batch by batch spends its time, step by step, so that a benchmark can say
//! which step to speed up (the caller times its own reading of the source).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The steps of a fit that the core times.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step {
    /// Checking a batch against the fit's schema.
    Check,
    /// Sampling values for the bin edges (the first pass).
    Sketch,
    /// Binning a batch's values.
    Bin,
    /// Routing rows to the open nodes.
    Route,
    /// Adding rows to the open nodes' statistics and histograms.
    Histograms,
    /// Choosing splits from the summed histograms.
    Splits,
    /// Keeping binned batches between passes and reading them back (a spill file's I/O).
    Keep,
}

const STEPS: [(Step, &str); 7] = [
    (Step::Check, "checking"),
    (Step::Sketch, "sketching"),
    (Step::Bin, "binning"),
    (Step::Route, "routing"),
    (Step::Histograms, "histograms"),
    (Step::Splits, "splits"),
    (Step::Keep, "keeping"),
];

/// Nanoseconds spent in each step (atomic: batches may be added from several threads).
#[derive(Debug, Default)]
pub(crate) struct Profile {
    nanos: [AtomicU64; STEPS.len()],
}

impl Profile {
    /// Counts the time since `start` to `step`.
    pub fn add(&self, step: Step, start: Instant) {
        self.add_seconds(step, start.elapsed().as_secs_f64());
    }

    pub fn add_seconds(&self, step: Step, seconds: f64) {
        if let Some(n) = self.nanos.get(step as usize) {
            n.fetch_add((seconds * 1e9) as u64, Ordering::Relaxed);
        }
    }

    /// Seconds per step, named.
    pub fn seconds(&self) -> Vec<(&'static str, f64)> {
        STEPS
            .iter()
            .zip(&self.nanos)
            .map(|(&(_, name), n)| (name, n.load(Ordering::Relaxed) as f64 / 1e9))
            .collect()
    }
}
