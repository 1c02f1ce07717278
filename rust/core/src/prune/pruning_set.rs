//! The rows J48 -R holds out for reduced-error pruning (Weka 3.6,
//! `PruneableClassifierTree.buildClassifier`): its data stratified into `folds` batches
//! (`Instances.stratify`), the last batch held out (`testCV(folds, folds - 1)`), the others
//! grown on. No random number is drawn: J48's seed (-Q) only orders the rows it grows on.

use crate::error::{CoreError, Result};

/// Which of `n_rows` rows J48 -R -N `folds` holds out. With `classes` (one code per row) the
/// rows are grouped by class first, as `stratify` does: the class of the first row not yet
/// grouped takes its rows forward by swaps, in their order, which reorders the rows left
/// behind. The grouped rows are then dealt round-robin into `folds` batches (`stratStep`),
/// the last one held out. Without classes (a numeric target) Weka neither groups nor deals:
/// the last of `folds` consecutive stretches is held out. The first `n_rows % folds` batches
/// hold one row more.
///
/// Weka's grouping rescans the rows left for each class: rows × classes steps.
pub fn j48_pruning_set(classes: Option<&[u32]>, n_rows: usize, folds: usize) -> Result<Vec<bool>> {
    if folds < 2 {
        return Err(CoreError::InvalidParameter {
            name: "pruning_folds",
            reason: format!("at least 2 folds are needed (one held out); got {folds}"),
        });
    }
    if let Some(c) = classes {
        if c.len() != n_rows {
            return Err(CoreError::InvalidParameter {
                name: "classes",
                reason: format!("one class per row ({n_rows}) is needed; got {}", c.len()),
            });
        }
    }
    let last = folds - 1;
    let mut held = vec![false; n_rows];
    let Some(classes) = classes else {
        let size = n_rows / folds + usize::from(last < n_rows % folds);
        let first = last * (n_rows / folds) + last.min(n_rows % folds);
        held.iter_mut()
            .skip(first)
            .take(size)
            .for_each(|h| *h = true);
        return Ok(held);
    };
    let class = |row: u32| classes.get(row as usize).copied();
    let mut order: Vec<u32> = (0..n_rows as u32).collect();
    let mut index = 1;
    while index < n_rows {
        let group = order.get(index - 1).copied().and_then(class);
        let from = index;
        for j in from..n_rows {
            if order.get(j).copied().and_then(class) == group {
                order.swap(index, j);
                index += 1;
            }
        }
        index += 1;
    }
    // Dealt round-robin, batch b takes the grouped positions b, b + folds, ...: the last
    // batch, which `testCV` slices from the dealt rows, is the positions ≡ folds − 1.
    for &row in order.iter().skip(last).step_by(folds) {
        if let Some(h) = held.get_mut(row as usize) {
            *h = true;
        }
    }
    Ok(held)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weka's procedure step by step: the swaps, `stratStep`'s dealing and `testCV`'s slice.
    fn literal(classes: &[u32], folds: usize) -> Vec<bool> {
        let n = classes.len();
        let mut order: Vec<usize> = (0..n).collect();
        let mut index = 1;
        while index < n {
            let first = classes[order[index - 1]];
            let from = index;
            for j in from..n {
                if classes[order[j]] == first {
                    order.swap(index, j);
                    index += 1;
                }
            }
            index += 1;
        }
        let mut dealt = Vec::new();
        for start in 0..folds {
            let mut j = start;
            while j < n {
                dealt.push(order[j]);
                j += folds;
            }
        }
        let f = folds - 1;
        let size = n / folds + usize::from(f < n % folds);
        let first = f * (n / folds) + f.min(n % folds);
        let mut held = vec![false; n];
        for &row in &dealt[first..first + size] {
            held[row] = true;
        }
        held
    }

    #[test]
    fn the_last_dealt_batch_is_held_out() -> Result<()> {
        let mut state = 7u64;
        for n in 0..60usize {
            for n_classes in 1..5u32 {
                let classes: Vec<u32> = (0..n)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                        (state >> 33) as u32 % n_classes
                    })
                    .collect();
                for folds in 2..6 {
                    let held = j48_pruning_set(Some(&classes), n, folds)?;
                    assert_eq!(held, literal(&classes, folds), "{n} rows, {folds} folds");
                }
            }
        }
        Ok(())
    }

    #[test]
    fn the_rows_interleave_by_class_before_they_are_dealt() -> Result<()> {
        // Rows 2 and 4 swap forward behind row 0, taking rows 1 and 3 (class 1) out of
        // their order.
        let classes = [0, 1, 0, 1, 0, 2];
        let held = j48_pruning_set(Some(&classes), 6, 3)?;
        // Grouping by swaps: [0, 2, 4 | 3, 1 | 5]; dealt positions 2 and 5: rows 4 and 5.
        assert_eq!(held, [false, false, false, false, true, true]);
        Ok(())
    }

    #[test]
    fn a_numeric_target_holds_out_the_last_stretch() -> Result<()> {
        let held = j48_pruning_set(None, 10, 3)?;
        assert_eq!(
            held,
            [false, false, false, false, false, false, false, true, true, true]
        );
        assert!(j48_pruning_set(None, 10, 1).is_err());
        assert!(j48_pruning_set(Some(&[0, 1]), 3, 2).is_err());
        Ok(())
    }
}
