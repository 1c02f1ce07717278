//! A degenerate chain: x = 0..n with alternating classes. Under Gini every split peels a
//! single row off, so the tree is n − 1 levels deep. (For n even, a cut after an even number
//! p of rows leaves both sides balanced, index 1/2, no decrease; after an odd p the weighted
//! child index is 1/2 − (1/p + 1/(n−p)) / 2n, lowest at p = 1 or p = n − 1. A node of odd
//! size starts and ends with the same class, and peeling either end leaves a balanced rest.)
//! Growth and prediction must walk it without recursion, quickly, even in a debug build
//! (about 2.5 s for n = 3000 when written).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dataset, OwnedCol};
use quercus_core::{grow, NodeId, NodeKind, Target, TreeParams};
use std::time::Instant;

const N: usize = 3000;

#[test]
fn alternating_chain_is_peeled_one_row_per_level() {
    let start = Instant::now();
    let cols = [OwnedCol::Num((0..N).map(|i| i as f64).collect())];
    let y: Vec<u32> = (0..N).map(|i| (i % 2) as u32).collect();
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let tree = grow(
        &dataset(&cols),
        &target,
        &vec![1.0; N],
        &TreeParams::default(),
    )
    .unwrap();
    let grown = start.elapsed();

    // One row per level: n − 1 splits in a chain, n leaves, depth n − 1.
    assert_eq!(tree.max_depth(), N - 1);
    assert_eq!(tree.n_leaves(), N);
    assert_eq!(tree.n_nodes(), 2 * N - 1);
    for i in 0..tree.n_nodes() as u32 {
        let node = NodeId(i);
        let kids: Vec<NodeId> = tree.children(node).collect();
        if kids.is_empty() {
            assert_eq!(tree.n_rows(node), 1.0, "every leaf holds one row");
            continue;
        }
        assert!(matches!(
            tree.kind(node),
            NodeKind::Numeric { feature: 0, .. }
        ));
        assert_eq!(kids.len(), 2);
        let single = kids
            .iter()
            .filter(|&&k| tree.kind(k) == NodeKind::Leaf && tree.n_rows(k) == 1.0)
            .count();
        assert!(single >= 1, "node {i} does not peel a single row");
    }

    // Training accuracy 1.0.
    let predicted = tree.predict_class(&dataset(&cols)).unwrap();
    assert_eq!(predicted, y);
    let leaves = tree.apply(&dataset(&cols)).unwrap();
    assert_eq!(leaves.len(), N);
    let total = start.elapsed();
    eprintln!("chain of {N}: grown in {grown:?}, grown and predicted in {total:?}");
}
