//! Post-pruning: pure passes over a grown tree that return a new, compact tree.
