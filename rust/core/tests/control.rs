//! Long work under the caller's control: cancelled from another thread, out of time, and
//! progress counted, for growth and prediction.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use quercus_core::{
    grow_controlled, Column, Control, CoreError, Criterion, Dataset, Sample, Splitter, Target,
    TreeParams,
};

/// `n` rows of `d` pseudo-random features and a noisy class, so a full tree is large.
fn data(n: usize, d: usize) -> (Vec<Vec<f64>>, Vec<u32>) {
    let mut state = 7u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let cols: Vec<Vec<f64>> = (0..d).map(|_| (0..n).map(|_| next()).collect()).collect();
    let y = (0..n).map(|_| u32::from(next() < 0.5)).collect();
    (cols, y)
}

fn fit(
    cols: &[Vec<f64>],
    y: &[u32],
    splitter: Splitter,
    control: &Control,
) -> quercus_core::Result<quercus_core::Tree> {
    let data = Dataset::new(cols.iter().map(|c| Column::numeric(c)).collect()).unwrap();
    let target = Target::Classes {
        codes: y,
        n_classes: 2,
    };
    let weights = vec![1.0; y.len()];
    let params = TreeParams {
        criterion: Criterion::Gini,
        splitter,
        ..TreeParams::default()
    };
    let sample = Sample {
        data: &data,
        target: &target,
        weights: &weights,
    };
    grow_controlled(&sample, &params, None, control)
}

#[test]
fn a_fit_cancelled_from_another_thread_stops_with_cancelled() {
    let (cols, y) = data(200_000, 8);
    for splitter in [Splitter::Exact, Splitter::Hist] {
        let control = Control::new();
        let result = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(20));
                control.cancel();
            });
            fit(&cols, &y, splitter, &control)
        });
        assert_eq!(result.err(), Some(CoreError::Cancelled), "{splitter:?}");
    }
}

#[test]
fn a_fit_past_its_time_limit_stops_with_timed_out() {
    let (cols, y) = data(50_000, 4);
    let control = Control::with_time_limit(1e-6).unwrap();
    std::thread::sleep(Duration::from_millis(1));
    assert!(matches!(
        fit(&cols, &y, Splitter::Exact, &control),
        Err(CoreError::TimedOut { seconds }) if seconds == 1e-6
    ));
}

#[test]
fn progress_counts_the_nodes_grown_and_the_rows_predicted() {
    let (cols, y) = data(2_000, 3);
    let control = Control::new();
    let tree = fit(&cols, &y, Splitter::Exact, &control).unwrap();
    // Every node but the root was grown as a child.
    assert_eq!(control.progress(), tree.n_nodes() as u64 - 1);

    let data = Dataset::new(cols.iter().map(|c| Column::numeric(c)).collect()).unwrap();
    let predicting = Control::new();
    let classes = tree
        .predictor(Some(2))
        .controlled(&predicting)
        .class(&data)
        .unwrap();
    assert_eq!(classes, tree.predict_class(&data).unwrap());
    assert_eq!(predicting.progress(), 2_000);

    let cancelled = Control::new();
    cancelled.cancel();
    assert_eq!(
        tree.predictor(None).controlled(&cancelled).class(&data),
        Err(CoreError::Cancelled)
    );
}
