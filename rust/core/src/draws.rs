//! The random choices of a fit: the features a node searches (`max_features`) and the random
//! splitter's tests.
//!
//! Every draw comes from a ChaCha8 stream of its own, named by the node and the purpose (the
//! node's feature order, or one feature's test), so a tree depends on the seed alone: not on
//! the threads, nor on the order nodes and features are searched in.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::tree::NodeId;

/// The seed every stream of a fit is cut from.
#[derive(Debug, Clone)]
pub(crate) struct Draws {
    seed: u64,
    /// Features a node searches before it looks further (at least 1).
    max_features: usize,
}

/// A stream of draws: ChaCha8 with its 64-bit stream number set.
pub(crate) type Stream = ChaCha8Rng;

impl Draws {
    /// `max_features`: `None` searches every feature.
    pub(crate) fn new(seed: u64, max_features: Option<usize>) -> Draws {
        Draws {
            seed,
            max_features: max_features.unwrap_or(usize::MAX).max(1),
        }
    }

    /// The stream of `node` for `purpose` (0: its feature order; f + 1: feature f's test).
    /// Node ids and feature indices are u32, so the two halves of the stream number never
    /// collide.
    fn stream(&self, node: NodeId, purpose: u64) -> Stream {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream((u64::from(node.0) << 32) | (purpose & 0xFFFF_FFFF));
        rng
    }

    /// The draws of feature `f`'s random test at `node`.
    pub(crate) fn feature_stream(&self, node: NodeId, f: usize) -> Stream {
        self.stream(node, f as u64 + 1)
    }

    /// The features `node` may search, in the order it searches them: a uniformly random
    /// order (Fisher–Yates) when it may not search them all, else ascending. The first
    /// `max_features` are searched together; the others one by one while no valid split is
    /// found (scikit-learn's documented rule).
    pub(crate) fn feature_order(&self, node: NodeId, usable: &[bool]) -> (Vec<usize>, usize) {
        let mut order: Vec<usize> = usable
            .iter()
            .enumerate()
            .filter_map(|(f, &u)| u.then_some(f))
            .collect();
        let k = self.max_features.min(order.len());
        if k < order.len() {
            let mut rng = self.stream(node, 0);
            // A whole Fisher–Yates shuffle: the first k places are the features searched,
            // the rest the order further ones are searched in when those give no split.
            for i in 0..order.len().saturating_sub(1) {
                let j = rng.random_range(i..order.len());
                order.swap(i, j);
            }
            // The drawn ones in ascending order: ties between them go to the lowest column,
            // as everywhere in quercus.
            if let Some(first) = order.get_mut(..k) {
                first.sort_unstable();
            }
        }
        (order, k)
    }
}

/// A value drawn uniformly in `[lo, hi)` (`lo` when the draw rounds up to `hi`, as
/// scikit-learn's `RandomSplitter` does, so that `x <= t` sends `hi` right).
pub(crate) fn uniform_threshold(rng: &mut Stream, lo: f64, hi: f64) -> f64 {
    let u: f64 = rng.random();
    let t = lo + (hi - lo) * u;
    if t >= hi || !t.is_finite() {
        lo
    } else {
        t
    }
}

/// A fair coin.
pub(crate) fn coin(rng: &mut Stream) -> bool {
    rng.random()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn streams_depend_on_seed_node_and_purpose_only() {
        let a = Draws::new(7, Some(3));
        let b = Draws::new(7, Some(3));
        let usable = vec![true; 10];
        assert_eq!(
            a.feature_order(NodeId(5), &usable),
            b.feature_order(NodeId(5), &usable)
        );
        // Drawing elsewhere first changes nothing.
        let _ = a.feature_order(NodeId(4), &usable);
        assert_eq!(
            a.feature_order(NodeId(5), &usable),
            b.feature_order(NodeId(5), &usable)
        );
        let other = Draws::new(8, Some(3));
        let differs = (0..20).any(|n| {
            a.feature_order(NodeId(n), &usable) != other.feature_order(NodeId(n), &usable)
        });
        assert!(differs);
        let mut x = a.feature_stream(NodeId(1), 2);
        let mut y = a.feature_stream(NodeId(1), 3);
        let mut z = a.feature_stream(NodeId(2), 2);
        let (u, v, w): (f64, f64, f64) = (x.random(), y.random(), z.random());
        assert!(u != v && u != w);
    }

    #[test]
    fn feature_order_is_a_permutation_of_the_usable_features() {
        let s = Draws::new(1, Some(2));
        let usable = [true, false, true, true, false, true];
        for node in 0..50 {
            let (order, k) = s.feature_order(NodeId(node), &usable);
            assert_eq!(k, 2);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![0, 2, 3, 5]);
            assert!(order[0] < order[1]);
        }
        // Searching every usable feature draws nothing: ascending order.
        let all = Draws::new(1, Some(4));
        assert_eq!(all.feature_order(NodeId(3), &usable), (vec![0, 2, 3, 5], 4));
    }

    /// Each feature is drawn among the first k about k/n of the time.
    #[test]
    fn features_are_drawn_uniformly() {
        let s = Draws::new(42, Some(3));
        let usable = vec![true; 12];
        let mut hits = [0usize; 12];
        let nodes = 12_000;
        for node in 0..nodes {
            let (order, k) = s.feature_order(NodeId(node), &usable);
            for &f in &order[..k] {
                hits[f] += 1;
            }
        }
        let expected = nodes as f64 * 3.0 / 12.0; // 3000, sd ≈ 47
        for h in hits {
            assert!((h as f64 - expected).abs() < 250.0, "{hits:?}");
        }
    }

    #[test]
    fn thresholds_lie_in_the_range() {
        let mut rng = Draws::new(3, None).feature_stream(NodeId(0), 0);
        for _ in 0..1000 {
            let t = uniform_threshold(&mut rng, -2.0, 5.0);
            assert!((-2.0..5.0).contains(&t));
        }
        assert_eq!(uniform_threshold(&mut rng, 1.0, 1.0), 1.0);
        let n = (0..1000).filter(|_| coin(&mut rng)).count();
        assert!((400..600).contains(&n));
    }
}
