//! rpart's split functions, operation for operation: `anova.c` and `gini.c` on a numeric or
//! categorical column, and `graycode.c`'s orders of categories. Each takes the node's rows in
//! rpart's order and returns rpart's best and where it cut.

/// `anova.c` on a numeric column: the best of `Σ_L² / w_L + Σ_R² / w_R` (sums of
/// `(y − ȳ)·w`) over the cuts between distinct values leaving `edge` rows on each side, and
/// the position of the last row left of it.
pub(super) fn anova_numeric(y: &[f64], x: &[f64], wt: &[f64], edge: usize) -> Option<(f64, usize)> {
    let n = y.len();
    let (mut right_sum, mut right_wt) = (0.0, 0.0);
    for (&v, &w) in y.iter().zip(wt) {
        right_sum += v * w;
        right_wt += w;
    }
    let grandmean = right_sum / right_wt;
    let (mut left_sum, mut left_wt, mut left_n, mut right_n) = (0.0, 0.0, 0usize, n);
    right_sum = 0.0;
    let (mut best, mut at) = (0.0, None);
    let mut i = 0;
    while right_n > edge {
        let (w, v) = (*wt.get(i)?, *y.get(i)?);
        left_wt += w;
        right_wt -= w;
        left_n += 1;
        right_n -= 1;
        let temp = (v - grandmean) * w;
        left_sum += temp;
        right_sum -= temp;
        if x.get(i + 1) != x.get(i) && left_n >= edge {
            let temp = left_sum * left_sum / left_wt + right_sum * right_sum / right_wt;
            if temp > best {
                best = temp;
                at = Some(i);
            }
        }
        i += 1;
    }
    Some((best, at?))
}

/// `anova.c` on a categorical column: the categories ordered by their mean (`graycode.c`'s
/// insertion sort), moved left one by one; the best and the categories left at it.
pub(super) fn anova_categories(
    y: &[f64],
    codes: &[usize],
    wt: &[f64],
    k: usize,
    edge: usize,
) -> Option<(f64, Vec<bool>)> {
    let (mut right_sum, mut right_wt) = (0.0, 0.0);
    for (&v, &w) in y.iter().zip(wt) {
        right_sum += v * w;
        right_wt += w;
    }
    let grandmean = right_sum / right_wt;
    let (mut sums, mut wts, mut countn) = (vec![0.0; k], vec![0.0; k], vec![0usize; k]);
    for ((&v, &w), &c) in y.iter().zip(wt).zip(codes) {
        if let (Some(s), Some(t), Some(n)) = (sums.get_mut(c), wts.get_mut(c), countn.get_mut(c)) {
            *n += 1;
            *t += w;
            *s += (v - grandmean) * w;
        }
    }
    let mean: Vec<f64> = sums.iter().zip(&wts).map(|(s, w)| s / w).collect();
    let ordered = ordered_categories(&countn, &mean);
    let (mut left_sum, mut left_wt, mut left_n, mut right_n) = (0.0, 0.0, 0usize, y.len());
    right_sum = 0.0;
    let mut left = vec![false; k];
    let (mut best, mut at) = (0.0, None);
    for &j in &ordered {
        if let Some(l) = left.get_mut(j) {
            *l = true;
        }
        let (n, w, s) = (*countn.get(j)?, *wts.get(j)?, *sums.get(j)?);
        left_n += n;
        right_n -= n;
        left_wt += w;
        right_wt -= w;
        left_sum += s;
        right_sum -= s;
        if left_n >= edge && right_n >= edge {
            let temp = left_sum * left_sum / left_wt + right_sum * right_sum / right_wt;
            if temp > best {
                best = temp;
                at = Some(left.clone());
            }
        }
    }
    Some((best, at?))
}

/// `graycode_init2`: the categories with rows, ordered by `value` with an insertion sort
/// (equal values keep their order), for the ordered scans of anova and two classes.
fn ordered_categories(countn: &[usize], value: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::new();
    for (i, (&n, &v)) in countn.iter().zip(value).enumerate() {
        if n == 0 {
            continue;
        }
        // After the last category of a lesser or equal value; first when there is none.
        let at = order
            .iter()
            .rposition(|&j| value.get(j).is_some_and(|&u| u <= v))
            .map_or(0, |p| p + 1);
        order.insert(at, i);
    }
    order
}

/// gini.c's impurity of a class probability: p(1 − p), or −p ln p for information.
fn impurity(p: f64, information: bool) -> f64 {
    if information {
        if p == 0.0 {
            0.0
        } else {
            -p * p.ln()
        }
    } else {
        p * (1.0 - p)
    }
}

/// The two sides' impurity `Σ_j w·I(a_j n_j / w)` as gini.c sums it, with the sides' class
/// weights and altered weights.
fn sides_impurity(
    left: &[f64],
    right: &[f64],
    (lwt, rwt): (f64, f64),
    aprior: &[f64],
    information: bool,
) -> f64 {
    let mut temp = 0.0;
    for ((&l, &r), &a) in left.iter().zip(right).zip(aprior) {
        temp += lwt * impurity(a * l / lwt, information);
        temp += rwt * impurity(a * r / rwt, information);
    }
    temp
}

/// gini.c's node impurity before any cut: every row right.
fn gini_start(
    class: &[usize],
    wt: &[f64],
    k: usize,
    aprior: &[f64],
    information: bool,
) -> (Vec<f64>, f64, f64) {
    let mut right = vec![0.0; k];
    let mut rwt = 0.0;
    for (&j, &w) in class.iter().zip(wt) {
        if let (Some(r), Some(a)) = (right.get_mut(j), aprior.get(j)) {
            rwt += a * w;
            *r += w;
        }
    }
    let mut total_ss = 0.0;
    for (&r, &a) in right.iter().zip(aprior) {
        total_ss += rwt * impurity(a * r / rwt, information);
    }
    (right, rwt, total_ss)
}

/// `gini.c` on a numeric column: `total_ss − best`, the best the least two-sided impurity
/// over the cuts between distinct values leaving `edge` rows on each side, and the position
/// of the last row left of it.
pub(super) fn gini_numeric(
    class: &[usize],
    x: &[f64],
    wt: &[f64],
    edge: usize,
    aprior: &[f64],
    information: bool,
) -> Option<(f64, usize)> {
    let k = aprior.len();
    let (mut right, mut rwt, total_ss) = gini_start(class, wt, k, aprior, information);
    let mut left = vec![0.0; k];
    let (mut lwt, mut ltot, mut rtot) = (0.0, 0usize, class.len());
    let (mut best, mut at) = (total_ss, None);
    let mut i = 0;
    while rtot > edge {
        let (j, w) = (*class.get(i)?, *wt.get(i)?);
        let a = *aprior.get(j)?;
        rwt -= a * w;
        lwt += a * w;
        rtot -= 1;
        ltot += 1;
        if let (Some(r), Some(l)) = (right.get_mut(j), left.get_mut(j)) {
            *r -= w;
            *l += w;
        }
        if ltot >= edge && x.get(i + 1) != x.get(i) {
            let temp = sides_impurity(&left, &right, (lwt, rwt), aprior, information);
            if temp < best {
                best = temp;
                at = Some(i);
            }
        }
        i += 1;
    }
    Some((total_ss - best, at?))
}

/// `gini.c` on a categorical column: two classes scan the categories ordered by their class-0
/// rate, more classes every subset in Gray-code order; `total_ss − best` and the categories
/// left at the best.
#[allow(clippy::too_many_arguments)]
pub(super) fn gini_categories(
    class: &[usize],
    codes: &[usize],
    wt: &[f64],
    k: usize,
    edge: usize,
    aprior: &[f64],
    information: bool,
) -> Option<(f64, Vec<bool>)> {
    let nc = aprior.len();
    let (mut right, mut rwt, total_ss) = gini_start(class, wt, nc, aprior, information);
    let mut left = vec![0.0; nc];
    let (mut lwt, mut ltot, mut rtot) = (0.0, 0usize, class.len());
    // ccnt[class][category], awt and countn per category.
    let mut ccnt = vec![0.0; nc * k];
    let (mut awt, mut countn) = (vec![0.0; k], vec![0usize; k]);
    for ((&j, &c), &w) in class.iter().zip(codes).zip(wt) {
        if let (Some(a), Some(n), Some(cell), Some(p)) = (
            awt.get_mut(c),
            countn.get_mut(c),
            ccnt.get_mut(j * k + c),
            aprior.get(j),
        ) {
            *a += p * w;
            *n += 1;
            *cell += w;
        }
    }
    // Class 0's share of each category (its row of `ccnt` first); 0 for one without weight.
    let rate: Vec<f64> = awt
        .iter()
        .zip(&ccnt)
        .map(|(&a, &n)| if a != 0.0 { n / a } else { 0.0 })
        .collect();
    let moves: Box<dyn Iterator<Item = usize>> = if nc == 2 {
        Box::new(ordered_categories(&countn, &rate).into_iter())
    } else {
        Box::new(GrayCode::new(&countn))
    };
    let mut is_left = vec![false; k];
    let (mut best, mut at) = (total_ss, None);
    for c in moves {
        let (Some(l), Some(&a), Some(&n)) = (is_left.get_mut(c), awt.get(c), countn.get(c)) else {
            return None;
        };
        *l = !*l;
        let to_left = *l;
        let sign = if to_left { 1.0 } else { -1.0 };
        rwt -= sign * a;
        lwt += sign * a;
        if to_left {
            rtot -= n;
            ltot += n;
        } else {
            rtot += n;
            ltot -= n;
        }
        for j in 0..nc {
            let cell = ccnt.get(j * k + c).copied().unwrap_or(0.0); // c < k, j < nc: never read
            if let (Some(r), Some(l)) = (right.get_mut(j), left.get_mut(j)) {
                if to_left {
                    *r -= cell;
                    *l += cell;
                } else {
                    *r += cell;
                    *l -= cell;
                }
            }
        }
        if ltot >= edge && rtot >= edge {
            let temp = sides_impurity(&left, &right, (lwt, rwt), aprior, information);
            if temp < best {
                best = temp;
                at = Some(is_left.clone());
            }
        }
    }
    Some((total_ss - best, at?))
}

/// `graycode_init1` and `graycode`: every subset of the categories with rows, each step
/// moving one category across (1, 2, 1, 4, 1, 2, 1, 8, ...); the last category never moves.
struct GrayCode {
    /// 0: no rows (never moves); 1 and 2: the two states of a category that moves.
    gray: Vec<u8>,
}

impl GrayCode {
    fn new(countn: &[usize]) -> GrayCode {
        GrayCode {
            gray: countn.iter().map(|&n| u8::from(n > 0)).collect(),
        }
    }
}

impl Iterator for GrayCode {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let last = self.gray.len().saturating_sub(1);
        for (i, g) in self.gray.iter_mut().enumerate().take(last) {
            match *g {
                1 => {
                    *g = 2;
                    return Some(i);
                }
                2 => *g = 1,
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ordered_categories_keep_equal_values_in_order() {
        // Category 1 has no rows; 3 and 0 tie at 0.5 and keep their order.
        let order = ordered_categories(&[2, 0, 1, 3], &[0.5, 9.0, 0.1, 0.5]);
        assert_eq!(order, vec![2, 0, 3]);
    }

    #[test]
    fn gray_code_visits_every_subset_once() {
        let mut state = [false; 4];
        let mut seen = std::collections::HashSet::new();
        seen.insert(state);
        for c in GrayCode::new(&[1, 1, 1, 1]) {
            state[c] = !state[c];
            assert!(seen.insert(state), "{state:?} twice");
        }
        // The last category never moves: 2^3 subsets.
        assert_eq!(seen.len(), 8);
    }

    #[test]
    fn anova_numeric_finds_the_best_cut() {
        let y = [1.0, 1.0, 5.0, 5.0];
        let x = [1.0, 2.0, 3.0, 4.0];
        let (best, at) = anova_numeric(&y, &x, &[1.0; 4], 1).unwrap();
        assert_eq!(at, 1);
        // Σ_L = 2·(1 − 3) = −4, Σ_R = 4: 16/2 + 16/2.
        assert_eq!(best, 16.0);
    }
}
