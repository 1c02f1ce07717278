//! Thread pools for fits and predictions with an explicit `n_jobs`.

use std::sync::{Arc, Mutex, PoisonError};

/// Pools by thread count, each made once: making one per call would cost more than
/// predicting a small batch.
static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());

/// Runs `f` on `n_jobs` threads: rayon's global pool (one thread per core) for `None`, else a
/// cached pool of that size (the caller's thread if one cannot be made).
pub(crate) fn in_pool<R: Send>(n_jobs: Option<usize>, f: impl FnOnce() -> R + Send) -> R {
    let Some(threads) = n_jobs else {
        return f();
    };
    let pool = {
        let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        match pools.iter().find(|(n, _)| *n == threads) {
            Some((_, pool)) => Some(Arc::clone(pool)),
            None => rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
                .map(|pool| {
                    let pool = Arc::new(pool);
                    pools.push((threads, Arc::clone(&pool)));
                    pool
                }),
        }
    };
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
