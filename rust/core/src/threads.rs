//! Thread pools for fits and predictions, one per thread count and per process.
//!
//! rayon's global pool is never used: after `fork()` its threads do not exist in the child,
//! and the child's first parallel call would wait for them forever (gunicorn `--preload`,
//! `multiprocessing` with the `fork` start method, joblib's process backends). Each pool
//! belongs to the process that made it; a forked child makes its own.

use std::sync::{Arc, Mutex, PoisonError};

use rayon::ThreadPool;

/// The pools made so far, and the process they belong to.
struct Pools {
    pid: u32,
    by_threads: Vec<(usize, Arc<ThreadPool>)>,
}

/// Made once per thread count: making a pool per call would cost more than predicting a
/// small batch.
static POOLS: Mutex<Pools> = Mutex::new(Pools {
    pid: 0,
    by_threads: Vec::new(),
});

/// Threads when `n_jobs` is `None`: one per core.
fn every_core() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) // unknown: one
}

/// The pool of `threads` threads of this process, made if need be (`None` if the system
/// refuses the threads).
fn pool(threads: usize) -> Option<Arc<ThreadPool>> {
    // Poisoned only by a panic, which the core does not raise: go on rather than panic too.
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = std::process::id();
    if pools.pid != pid {
        // A forked child: the parent's pools have no threads here. Dropping one would signal
        // threads that do not exist, so they are left unreleased (a few bytes each).
        std::mem::forget(std::mem::take(&mut pools.by_threads));
        pools.pid = pid;
    }
    if let Some((_, pool)) = pools.by_threads.iter().find(|(n, _)| *n == threads) {
        return Some(Arc::clone(pool));
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("quercus-{i}"))
            .build()
            .ok()?,
    );
    pools.by_threads.push((threads, Arc::clone(&pool)));
    Some(pool)
}

/// Runs `f` on `n_jobs` threads (`None`: one per core) of this process's pool; on the
/// caller's thread alone if the system refuses the threads.
pub(crate) fn in_pool<R: Send>(n_jobs: Option<usize>, f: impl FnOnce() -> R + Send) -> R {
    match pool(n_jobs.unwrap_or_else(every_core)) {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
