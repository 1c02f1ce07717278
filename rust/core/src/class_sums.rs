//! Sums over a node's class weights that cost the classes the node holds: a node of many
//! classes holds few of them (quercus issue 38). The criteria, the measures and the split
//! scans all add class weights this way, so it sits below them.

/// From this many classes on, the sums over class weights read only the non-zero ones: a
/// node of many classes holds few of them (quercus issue 38), and a sum in order waits on
/// each add; below it the loops unroll over every class.
const SPARSE_CLASSES: usize = 9;

/// `Σ f(c)` over the class weights `counts` in order, as `counts.iter().map(f).sum()` adds
/// them, for an `f` with f(±0) = +0: from [`SPARSE_CLASSES`] classes on, over the non-zero
/// weights only. Adding +0 leaves every sum but −0 unchanged, so the two agree but for the
/// sign of a zero sum.
#[inline(always)]
pub(crate) fn sum_over_classes(counts: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    if counts.len() < SPARSE_CLASSES {
        return counts.iter().map(|&c| f(c)).sum();
    }
    let mut sum = -0.0;
    each_class_weight(counts, |c| sum += f(c));
    sum
}

/// Calls `visit` on the class weights `counts` in order: on every one below
/// [`SPARSE_CLASSES`] classes, on the non-zero ones from there on. Blocks of 8 are tested
/// whole, by their bits bar the signs (or-ed as integers, which vectorises), with a branch
/// the compiler keeps: per class it computes `visit` anyway and selects.
#[inline(always)]
pub(crate) fn each_class_weight(counts: &[f64], mut visit: impl FnMut(f64)) {
    if counts.len() < SPARSE_CLASSES {
        counts.iter().for_each(|&c| visit(c));
        return;
    }
    let mut some = |block: &[f64]| {
        for &c in block {
            if c != 0.0 {
                visit(c);
            }
        }
    };
    let blocks = counts.chunks_exact(8);
    let rest = blocks.remainder();
    for block in blocks {
        if block.iter().fold(0u64, |any, &c| any | (c.to_bits() << 1)) != 0 {
            some(block);
        }
    }
    some(rest);
}

/// The total of class weights, bit for bit `counts.iter().sum()` (a zero total, which only
/// the signs of its zeros tell apart, is summed in full).
#[inline(always)]
pub(crate) fn class_sum(counts: &[f64]) -> f64 {
    let total = sum_over_classes(counts, |c| c);
    if total == 0.0 {
        counts.iter().sum()
    } else {
        total
    }
}
