//! The tests' one generator of reproducible draws: property tests build their random cases
//! from it, so a failing case replays from its seed.

/// The state after `state` (Knuth's MMIX linear congruential step); callers take its high
/// bits, the well-mixed ones.
pub(crate) fn step(state: u64) -> u64 {
    state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
}
