//! Long core work that stays under the user's control: Ctrl-C stops it within a fraction of a
//! second, and its progress reaches an optional Python callback.
//!
//! Python runs signal handlers only on the main thread, and only when that thread runs Python
//! code; a fit that released the GIL for minutes would swallow Ctrl-C. So the work runs on a
//! helper thread while the calling thread, without the GIL, waits for it in short ticks, and
//! between ticks takes the GIL to run the signal handlers (`PyErr_CheckSignals`) and report
//! progress. A handler that raises (KeyboardInterrupt) cancels the work through its
//! [`Control`]; the exception is raised once the work has stopped, with nothing half-done kept.

use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use quercus_core::{Control, CoreError};

use crate::errors::to_py;

/// How often the waiting thread looks at signals: well inside the one second a user waits
/// for Ctrl-C to act.
const TICK: Duration = Duration::from_millis(50);

/// How often the progress callback is called.
const REPORT: Duration = Duration::from_millis(250);

/// What a progress report counts.
#[derive(Clone, Copy)]
pub enum Units {
    Nodes,
    Rows,
    /// Candidate splits evaluated by the optimal search.
    Splits,
}

impl Units {
    fn name(self) -> &'static str {
        match self {
            Units::Nodes => "nodes",
            Units::Rows => "rows",
            Units::Splits => "splits",
        }
    }
}

/// Runs `work` under `control` without the GIL, watching for signals (see the module) and
/// calling `progress(done, units)` every [`REPORT`] while it runs. An exception raised by a
/// signal handler or by the callback cancels the work and is raised in its place.
pub fn watched<T: Send>(
    py: Python<'_>,
    control: &Control,
    progress: Option<(&Py<PyAny>, Units)>,
    work: impl FnOnce() -> quercus_core::Result<T> + Send,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::thread::scope(|s| {
            let (done, finished) = channel();
            s.spawn(move || done.send(work()));
            let mut reported = Instant::now();
            loop {
                match finished.recv_timeout(TICK) {
                    Ok(outcome) => return outcome,
                    // The worker panicked: the scope re-raises its panic on exit.
                    Err(RecvTimeoutError::Disconnected) => return Err(CoreError::Cancelled),
                    Err(RecvTimeoutError::Timeout) if raised.is_some() => {}
                    Err(RecvTimeoutError::Timeout) => Python::attach(|py| {
                        let report = progress.filter(|_| reported.elapsed() >= REPORT);
                        let checked = py.check_signals().and_then(|()| match report {
                            Some((callback, units)) => {
                                reported = Instant::now();
                                callback
                                    .call1(py, (control.progress(), units.name()))
                                    .map(drop)
                            }
                            None => Ok(()),
                        });
                        if let Err(e) = checked {
                            control.cancel();
                            raised = Some(e);
                        }
                    }),
                }
            }
        })
    });
    match (raised, outcome) {
        (Some(e), _) => Err(e),
        (None, outcome) => outcome.map_err(to_py),
    }
}
