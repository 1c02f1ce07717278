//! The split measures of text 002 §3 that are not an impurity decrease, and the DKM
//! impurity, and the entropy they build on. Each takes class weights;
//! [`crate::criterion::Criterion`] dispatches to them.

use crate::class_sums::{class_sum, each_class_weight};

/// Ent(D) = −Σ p_k log2 p_k over class weights.
#[inline]
pub fn entropy(counts: &[f64]) -> f64 {
    let total = class_sum(counts);
    if total <= 0.0 {
        return 0.0;
    }
    let mut sum = -0.0;
    each_class_weight(counts, |c| {
        if c > 0.0 {
            let p = c / total;
            sum += p * p.log2();
        }
    });
    // A pure node gives −0.0; report it as 0.
    (-sum).max(0.0)
}

/// DKM impurity 2·sqrt(p1·p2) of two class weights (text 002 §3.6).
pub fn dkm(counts: &[f64]) -> f64 {
    let total: f64 = counts.iter().sum();
    match counts {
        // max(0): a class weight left at -1e-17 by rounding (a scan subtracting rows) must
        // not make the square root NaN, which no later candidate could beat.
        [a, b] if total > 0.0 => 2.0 * ((a / total) * (b / total)).max(0.0).sqrt(),
        _ => 0.0,
    }
}

/// Entropy of the joint distribution of branch and class: the distance measure's
/// normaliser (text 002 §3.9).
pub fn joint_entropy(children: &[&[f64]]) -> f64 {
    let cells: Vec<f64> = children.iter().flat_map(|c| c.iter().copied()).collect();
    entropy(&cells)
}

/// The two sides of a binary split, or `None` for another number of children.
pub(crate) fn two_parts<'c>(children: &[&'c [f64]]) -> Option<(&'c [f64], &'c [f64])> {
    match children {
        [left, right] => Some((*left, *right)),
        _ => None,
    }
}

fn shares(counts: &[f64]) -> Vec<f64> {
    let total: f64 = counts.iter().sum();
    counts
        .iter()
        .map(|c| if total > 0.0 { c / total } else { 0.0 })
        .collect()
}

/// Twoing: 0.25 · pL · pR · (Σ_c |p(c|L) − p(c|R)|)² (text 002 §3.11).
pub fn twoing(left: &[f64], right: &[f64]) -> f64 {
    let (wl, wr): (f64, f64) = (left.iter().sum(), right.iter().sum());
    let w = wl + wr;
    if wl <= 0.0 || wr <= 0.0 {
        return 0.0;
    }
    let spread: f64 = shares(left)
        .iter()
        .zip(shares(right))
        .map(|(l, r)| (l - r).abs())
        .sum();
    0.25 * (wl / w) * (wr / w) * spread * spread
}

/// ORT: 1 − cos θ between the class distributions of the two sides (text 002 §3.12).
pub fn ort(left: &[f64], right: &[f64]) -> f64 {
    let (pl, pr) = (shares(left), shares(right));
    let dot: f64 = pl.iter().zip(&pr).map(|(a, b)| a * b).sum();
    let norm = |p: &[f64]| p.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (nl, nr) = (norm(&pl), norm(&pr));
    if nl <= 0.0 || nr <= 0.0 {
        return 0.0;
    }
    1.0 - dot / (nl * nr)
}

/// Kolmogorov–Smirnov distance |w(L, c1)/w(c1) − w(L, c2)/w(c2)| (text 002 §3.13): how
/// differently the split sends the two classes left. With more classes, the largest such
/// distance over pairs of present classes (after Utgoff & Clouse 1996).
pub fn kolmogorov_smirnov(left: &[f64], known: &[f64]) -> f64 {
    let sent: Vec<f64> = left
        .iter()
        .zip(known)
        .filter(|(_, &t)| t > 0.0)
        .map(|(l, t)| l / t)
        .collect();
    let max = sent.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = sent.iter().copied().fold(f64::INFINITY, f64::min);
    if sent.len() < 2 {
        0.0
    } else {
        max - min
    }
}

/// Area under the convex hull of the ROC curve the split's children draw when each predicts
/// its share of class 0 (Ferri et al. 2002; text 002 §3.14). Children sorted by that share,
/// highest first, give the hull itself. Two classes; 0.5 when a class is absent.
pub fn auc(children: &[&[f64]]) -> f64 {
    let mut parts: Vec<(f64, f64)> = children
        .iter()
        .filter_map(|c| match c {
            [pos, neg] if pos + neg > 0.0 => Some((*pos, *neg)),
            _ => None,
        })
        .collect();
    let (p, n): (f64, f64) = parts
        .iter()
        .fold((0.0, 0.0), |(p, n), (a, b)| (p + a, n + b));
    if p <= 0.0 || n <= 0.0 {
        return 0.5;
    }
    parts.sort_by(|a, b| (b.0 / (b.0 + b.1)).total_cmp(&(a.0 / (a.0 + a.1))));
    let (mut tpr, mut fpr, mut area) = (0.0, 0.0, 0.0);
    for (pos, neg) in parts {
        let (t, f) = (tpr + pos / p, fpr + neg / n);
        area += (f - fpr) * (tpr + t) / 2.0;
        (tpr, fpr) = (t, f);
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    // One split used throughout: left holds classes (3, 1), right (1, 3).
    const LEFT: [f64; 2] = [3.0, 1.0];
    const RIGHT: [f64; 2] = [1.0, 3.0];

    #[test]
    fn dkm_by_hand() {
        // p = (1/4, 3/4): 2·sqrt(3/16) = 0.8660.
        assert!(close(dkm(&[1.0, 3.0]), 0.8660));
        assert_eq!(dkm(&[4.0, 0.0]), 0.0);
    }

    #[test]
    fn twoing_by_hand() {
        // pL = pR = 1/2; |3/4 − 1/4| + |1/4 − 3/4| = 1 → 0.25 · 1/4 · 1² = 0.0625, half the
        // Gini decrease 0.5 − 0.375 = 0.125 (twoing and Gini agree on two classes).
        assert!(close(twoing(&LEFT, &RIGHT), 0.0625));
        assert_eq!(twoing(&LEFT, &[0.0, 0.0]), 0.0);
    }

    #[test]
    fn ort_by_hand() {
        // P_L·P_R = 3/16 + 3/16 = 0.375; |P_L|² = |P_R|² = 10/16 → cos θ = 0.6, ORT = 0.4.
        assert!(close(ort(&LEFT, &RIGHT), 0.4));
        assert!(close(ort(&LEFT, &LEFT), 0.0));
    }

    #[test]
    fn kolmogorov_smirnov_by_hand() {
        // Class 1 sends 3/4 left, class 2 1/4: |3/4 − 1/4| = 0.5.
        assert!(close(kolmogorov_smirnov(&LEFT, &[4.0, 4.0]), 0.5));
        // Three classes sending 1, 1/2 and 0 left: the widest pair gives 1.
        assert!(close(
            kolmogorov_smirnov(&[2.0, 1.0, 0.0], &[2.0, 2.0, 2.0]),
            1.0
        ));
    }

    #[test]
    fn auc_by_hand() {
        // ROC through (0,0), (1/4, 3/4), (1,1): 1/4·3/4/2 + 3/4·(3/4 + 1)/2 = 0.75.
        assert!(close(auc(&[&LEFT, &RIGHT]), 0.75));
        // Children in the other order draw the same hull.
        assert!(close(auc(&[&RIGHT, &LEFT]), 0.75));
        // A split that separates nothing: the diagonal.
        assert!(close(auc(&[&[1.0, 1.0], &[2.0, 2.0]]), 0.5));
        // A perfect split.
        assert!(close(auc(&[&[4.0, 0.0], &[0.0, 4.0]]), 1.0));
    }

    #[test]
    fn joint_entropy_by_hand() {
        // Cells 3/8, 1/8, 1/8, 3/8: −2·(3/8)·log2(3/8) − 2·(1/8)·log2(1/8) = 1.8113.
        assert!(close(joint_entropy(&[&LEFT, &RIGHT]), 1.8113));
    }
}
