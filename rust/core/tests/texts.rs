//! The source texts' figures and trees, recomputed through the public API.
//!
//! Every expected number is printed by a text (see `python/quercus/data/README.md`; the texts
//! round intermediate results, hence the 0.002 tolerance) or computed by hand in a comment.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{check_tree, descend, leaf, multi, num, OwnedCol, Table};
use quercus_core::{
    grow, split_scores, CategoricalSplit, Criterion, FeatureScore, NoSplit, NodeId, NodeKind, Tree,
    TreeParams,
};

const TOL: f64 = 0.002;

fn id3() -> TreeParams {
    TreeParams::new(
        Criterion::Entropy,
        CategoricalSplit::Multiway,
        None,
        2,
        1,
        12,
    )
    .unwrap()
}

fn grow_id3(t: &Table) -> Tree {
    grow(&t.dataset(), &t.target(), &t.unit_weights(), &id3()).unwrap()
}

/// Each feature's score, NaN where it has none (the reason is checked apart).
fn scores(t: &Table, criterion: Criterion) -> Vec<FeatureScore> {
    reasons(t, criterion)
        .into_iter()
        .map(|s| s.unwrap_or(FeatureScore::NONE))
        .collect()
}

fn reasons(t: &Table, criterion: Criterion) -> Vec<Result<FeatureScore, NoSplit>> {
    split_scores(
        &t.dataset(),
        &t.target(),
        &t.unit_weights(),
        criterion,
        CategoricalSplit::Multiway,
    )
    .unwrap()
}

/// Entropy in bits of a weight vector, computed here independently of the core.
fn h(counts: &[f64]) -> f64 {
    let total: f64 = counts.iter().sum();
    counts
        .iter()
        .filter(|&&c| c > 0.0)
        .map(|&c| -(c / total) * (c / total).log2())
        .sum()
}

fn assert_near(got: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (got - expected).abs() <= tol,
        "{what}: got {got}, expected {expected} (±{tol})"
    );
}

/// Checks the information gains of named features against the printed figures.
fn assert_gains(t: &Table, s: &[FeatureScore], expected: &[(&str, f64)]) {
    for &(name, gain) in expected {
        let f = &s[t.col(name)];
        assert_near(f.gain, gain, TOL, &format!("Gain(D, {name})"));
        // Under the entropy criterion the reported score is the gain itself.
        assert_near(f.score, f.gain, 1e-12, &format!("score of {name}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Watermelon 2.0 (text 000, Table 4.1).

#[test]
fn watermelon2_root_entropy_and_gains() {
    let t = Table::load("watermelon2");
    assert_eq!(t.n_rows(), 17);
    // Ent(D) = 0.998 (8 ripe, 9 unripe).
    let tree = grow_id3(&t);
    assert_near(tree.impurity(NodeId::ROOT), 0.998, TOL, "Ent(D)");
    assert_near(tree.weight(NodeId::ROOT), 17.0, 1e-12, "root weight");

    let s = scores(&t, Criterion::Entropy);
    assert_eq!(s.len(), 6);
    assert_gains(
        &t,
        &s,
        &[
            ("color", 0.109),
            ("root", 0.143),
            ("sound", 0.141),
            ("texture", 0.381),
            ("umbilicus", 0.289),
            ("surface", 0.006),
        ],
    );
    for f in &s {
        assert_near(f.rho, 1.0, 1e-12, "rho without missing values");
        assert!(f.threshold.is_nan(), "a multiway split has no threshold");
    }
    // The root's recorded scores are the same figures.
    let recorded = tree.node_scores(NodeId::ROOT).expect("root was searched");
    for (a, b) in recorded.iter().zip(&s) {
        assert_near(a.gain, b.gain, 1e-12, "recorded root gain");
    }
}

#[test]
fn watermelon2_texture_clear_node_gains() {
    // Node texture = clear holds samples 1,2,3,4,5,6,8,10,15 (text 000 §4.2.1).
    let t = Table::load("watermelon2");
    let clear = t.samples(&[1, 2, 3, 4, 5, 6, 8, 10, 15]);
    let expected = [
        ("color", 0.043),
        ("root", 0.458),
        ("sound", 0.331),
        ("umbilicus", 0.458),
        ("surface", 0.458),
    ];
    let s = scores(&clear, Criterion::Entropy);
    assert_gains(&clear, &s, &expected);
    // Texture is constant on these rows: it cannot separate them, and says so.
    assert!(s[t.col("texture")].gain.is_nan());
    assert_eq!(
        reasons(&clear, Criterion::Entropy)[t.col("texture")],
        Err(NoSplit::OneKnownValue)
    );

    // The same figures are recorded at that node of the grown tree, where texture, already
    // used by the multiway root, is no longer a candidate.
    let tree = grow_id3(&t);
    let node = descend(&tree, &[t.code("texture", "clear") as usize]);
    assert_near(tree.weight(node), 9.0, 1e-12, "weight of texture = clear");
    let recorded = tree.node_scores(node).expect("searched");
    assert_gains(&t, recorded, &expected);
    assert!(recorded[t.col("texture")].gain.is_nan());
}

#[test]
fn watermelon2_split_information_and_gain_ratio() {
    let t = Table::load("watermelon2");
    let s = scores(&t, Criterion::GainRatio);
    // Printed: IV(surface) = 0.874, IV(color) = 1.580.
    assert_near(s[t.col("surface")].iv, 0.874, TOL, "IV(surface)");
    assert_near(s[t.col("color")].iv, 1.580, TOL, "IV(color)");
    // Gain_ratio = Gain / IV from the printed figures: color 0.109 / 1.580 = 0.0690,
    // surface 0.006 / 0.874 = 0.0069.
    assert_near(
        s[t.col("color")].score,
        0.109 / 1.580,
        TOL,
        "Gain_ratio(color)",
    );
    assert_near(
        s[t.col("surface")].score,
        0.006 / 0.874,
        TOL,
        "Gain_ratio(surface)",
    );
    // Every feature: IV is the entropy of its category counts, counted here from the data.
    for (j, col) in t.cols.iter().enumerate() {
        let OwnedCol::Cat {
            codes,
            n_categories,
            ..
        } = col
        else {
            panic!("watermelon 2.0 is categorical")
        };
        let mut counts = vec![0.0; *n_categories as usize];
        for &c in codes {
            counts[c as usize] += 1.0;
        }
        assert_near(s[j].iv, h(&counts), 1e-9, &format!("IV of column {j}"));
        assert_near(s[j].score, s[j].gain / s[j].iv, 1e-9, "ratio = gain / IV");
    }

    // The row number as a 17-valued attribute: Gain = 0.998, IV = 4.088 (= log2 17).
    let mut with_id = t.clone();
    with_id.cols.push(OwnedCol::cat((0..17).collect(), 17));
    with_id.names.push("ID".into());
    with_id
        .levels
        .push((1..=17).map(|i| i.to_string()).collect());
    let s = scores(&with_id, Criterion::GainRatio);
    let id = &s[6];
    assert_near(id.gain, 0.998, TOL, "Gain(D, ID)");
    assert_near(id.iv, 4.088, TOL, "IV(ID)");
    assert_near(id.iv, 17f64.log2(), 1e-9, "IV(ID) = log2 17");
}

#[test]
fn fig_4_3_watermelon2_tree() {
    let t = Table::load("watermelon2");
    let (yes, no) = (t.class("yes"), t.class("no"));
    let (color, root, texture, surface) = (
        t.col("color"),
        t.col("root"),
        t.col("texture"),
        t.col("surface"),
    );
    let tree = grow_id3(&t);
    // Children follow the category order of the meta file:
    // texture: clear, slightly_blurry, blurry; root: curly, slightly_curly, straight;
    // color: green, dark, light; surface: hard, soft.
    let expected = multi(
        texture,
        vec![
            multi(
                root,
                vec![
                    leaf(yes),
                    multi(
                        color,
                        vec![
                            leaf(yes),
                            multi(surface, vec![leaf(yes), leaf(no)]),
                            leaf(yes),
                        ],
                    ),
                    leaf(no),
                ],
            ),
            multi(surface, vec![leaf(no), leaf(yes)]),
            leaf(no),
        ],
    );
    check_tree(&tree, &expected);

    // texture = clear, root = slightly_curly holds samples 6 (yes), 8 (yes), 15 (no); its
    // color = light branch is empty: weight 0, branch fraction 0, the parent's distribution
    // (2 yes, 1 no) and the parent's class (yes).
    let parent = descend(&tree, &[0, 1]);
    let light = descend(&tree, &[0, 1, 2]);
    let mut parent_value = vec![0.0; 2];
    parent_value[yes as usize] = 2.0;
    parent_value[no as usize] = 1.0;
    assert_eq!(tree.value(parent), parent_value.as_slice());
    assert_eq!(tree.value(light), parent_value.as_slice());
    assert_eq!(tree.weight(light), 0.0);
    assert_eq!(tree.branch_fraction(light), 0.0);
    assert_eq!(tree.label(light), yes);

    // The tree is consistent with its training set.
    assert_eq!(tree.predict_class(&t.dataset()).unwrap(), t.y);
}

// ---------------------------------------------------------------------------------------------
// Watermelon 3.0 (text 000, Table 4.3): numeric attributes.

#[test]
fn watermelon3_numeric_best_splits() {
    let t = Table::load("watermelon3");
    let s = scores(&t, Criterion::Entropy);
    // Categorical attributes are those of 2.0.
    assert_gains(&t, &s, &[("color", 0.109), ("texture", 0.381)]);
    let density = &s[t.col("density")];
    let sugar = &s[t.col("sugar")];
    // Printed: density 0.381 / 0.262, sugar 0.126 / 0.349; the exact midpoints are
    // (0.360 + 0.403) / 2 = 0.3815 and (0.103 + 0.149) / 2 = 0.126.
    assert_near(density.threshold, (0.360 + 0.403) / 2.0, 1e-9, "T(density)");
    assert_near(density.threshold, 0.381, 0.001, "printed T(density)");
    assert_near(density.gain, 0.262, TOL, "Gain(D, density)");
    assert_near(sugar.threshold, (0.103 + 0.149) / 2.0, 1e-9, "T(sugar)");
    assert_near(sugar.gain, 0.349, TOL, "Gain(D, sugar)");
    assert!(density.iv > 0.0 && sugar.iv > 0.0);
}

#[test]
fn fig_4_7_watermelon3_tree() {
    let t = Table::load("watermelon3");
    let (yes, no) = (t.class("yes"), t.class("no"));
    let (texture, surface, density) = (t.col("texture"), t.col("surface"), t.col("density"));
    let tree = grow_id3(&t);
    let expected = multi(
        texture,
        vec![
            num(density, (0.360 + 0.403) / 2.0, leaf(no), leaf(yes)),
            multi(surface, vec![leaf(no), leaf(yes)]),
            leaf(no),
        ],
    );
    check_tree(&tree, &expected);

    // Under slightly_blurry (samples 7 yes; 9, 13, 14, 17 no) surface and density <= 0.560
    // both separate the classes perfectly: gain Ent(1/5) = 0.7219 each, a tie that the lower
    // column index (surface) wins.
    let node = descend(&tree, &[t.code("texture", "slightly_blurry") as usize]);
    let s = tree.node_scores(node).expect("searched");
    let perfect = h(&[1.0, 4.0]);
    assert_near(
        s[surface].gain,
        perfect,
        1e-9,
        "surface under slightly_blurry",
    );
    assert_near(
        s[density].gain,
        perfect,
        1e-9,
        "density under slightly_blurry",
    );
    assert_near(s[density].threshold, (0.481 + 0.639) / 2.0, 1e-9, "0.560");
    assert_eq!(tree.predict_class(&t.dataset()).unwrap(), t.y);
}

#[test]
fn fig_4_9_watermelon3alpha_tree_reuses_numeric_attributes() {
    let t = Table::load("watermelon3alpha");
    let (yes, no) = (t.class("yes"), t.class("no"));
    let (density, sugar) = (t.col("density"), t.col("sugar"));
    let tree = grow_id3(&t);
    // Midpoints of adjacent values: sugar (0.103 + 0.149) / 2, density (0.360 + 0.403) / 2,
    // sugar (0.198 + 0.211) / 2 = 0.2045, density (0.481 + 0.639) / 2 = 0.560.
    let expected = num(
        sugar,
        (0.103 + 0.149) / 2.0,
        leaf(no),
        num(
            density,
            (0.360 + 0.403) / 2.0,
            leaf(no),
            num(
                sugar,
                (0.198 + 0.211) / 2.0,
                num(density, (0.481 + 0.639) / 2.0, leaf(yes), leaf(no)),
                leaf(yes),
            ),
        ),
    );
    check_tree(&tree, &expected);
    // The text's printed root figure: sugar <= 0.126, gain 0.349.
    let root = tree.node_scores(NodeId::ROOT).unwrap();
    assert_near(root[sugar].gain, 0.349, TOL, "root gain of sugar");
    assert_eq!(tree.max_depth(), 4);
    assert_eq!(tree.predict_class(&t.dataset()).unwrap(), t.y);
}

// ---------------------------------------------------------------------------------------------
// Watermelon 2.0α (text 000, Table 4.4): C4.5's missing values.

#[test]
fn watermelon2alpha_missing_value_gains() {
    let t = Table::load("watermelon2alpha");
    let s = scores(&t, Criterion::Entropy);
    // Printed gains; sound is 0.145 (the English edition misprints 0.252).
    assert_gains(
        &t,
        &s,
        &[
            ("color", 0.252),
            ("root", 0.171),
            ("sound", 0.145),
            ("texture", 0.424),
            ("umbilicus", 0.289),
            ("surface", 0.006),
        ],
    );
    // Color is known on 14 of 17 rows (missing on samples 1, 5, 13): rho = 14/17, and
    // Gain(D, color) = rho × Gain(D̃, color) with Gain(D̃, color) = 0.306 printed.
    let color = &s[t.col("color")];
    assert_near(color.rho, 14.0 / 17.0, 1e-12, "rho(color)");
    assert_near(color.gain / color.rho, 0.306, TOL, "Gain(D̃, color)");
    // Every other attribute misses exactly two cells: rho = 15/17.
    for name in ["root", "sound", "texture", "umbilicus", "surface"] {
        assert_near(s[t.col(name)].rho, 15.0 / 17.0, 1e-12, name);
    }

    // Ent(D̃) = 0.985 on the 14 rows with color known.
    let known: Vec<usize> = (1..=17).filter(|s| ![1, 5, 13].contains(s)).collect();
    assert_eq!(known.len(), 14);
    let sub = t.samples(&known);
    let tree = grow_id3(&sub);
    assert_near(tree.impurity(NodeId::ROOT), 0.985, TOL, "Ent(D̃)");
}

#[test]
fn watermelon2alpha_root_distributes_missing_rows() {
    let t = Table::load("watermelon2alpha");
    let (yes, no) = (t.class("yes") as usize, t.class("no") as usize);
    let texture = t.col("texture");
    let tree = grow_id3(&t);
    // Texture has the largest gain (0.424): the root splits on it.
    assert_eq!(
        tree.kind(NodeId::ROOT),
        NodeKind::Multiway { feature: texture }
    );
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(kids.len(), 3);
    // Texture is known on 15 rows (missing on samples 8 and 10):
    //   clear           = samples 1,2,3,4,5,6,15   → 7, r̃ = 7/15
    //   slightly_blurry = samples 7,9,13,14,17      → 5, r̃ = 5/15
    //   blurry          = samples 11,12,16          → 3, r̃ = 3/15
    // Samples 8 (yes) and 10 (no) enter every child with weight r̃, so the children weigh
    //   clear           7 + 2·7/15 = 7 + 14/15 = 7.9333
    //   slightly_blurry 5 + 2·5/15 = 5 + 10/15 = 5.6667
    //   blurry          3 + 2·3/15 = 3 +  6/15 = 3.4000   (sum 17).
    // Class weights: clear = 6 yes (1-6) + 7/15 (8) | 1 no (15) + 7/15 (10);
    //   slightly_blurry = 1 yes (7) + 5/15 | 4 no (9,13,14,17) + 5/15;
    //   blurry = 0 yes + 3/15 | 3 no (11,12,16) + 3/15.
    let fractions = [7.0 / 15.0, 5.0 / 15.0, 3.0 / 15.0];
    let weights = [7.0 + 14.0 / 15.0, 5.0 + 10.0 / 15.0, 3.0 + 6.0 / 15.0];
    let values = [
        (6.0 + 7.0 / 15.0, 1.0 + 7.0 / 15.0),
        (1.0 + 5.0 / 15.0, 4.0 + 5.0 / 15.0),
        (3.0 / 15.0, 3.0 + 3.0 / 15.0),
    ];
    for (k, &child) in kids.iter().enumerate() {
        assert_near(tree.branch_fraction(child), fractions[k], 1e-12, "r̃");
        assert_near(tree.weight(child), weights[k], 1e-12, "child weight");
        assert_near(tree.value(child)[yes], values[k].0, 1e-12, "yes weight");
        assert_near(tree.value(child)[no], values[k].1, 1e-12, "no weight");
        // Rows are counted by weight, a fragment as the fraction it carries (C4.5).
        assert_near(
            tree.n_rows(child),
            weights[k],
            1e-12,
            "rows, fragments by fraction",
        );
    }
    let total: f64 = kids.iter().map(|&c| tree.weight(c)).sum();
    assert_near(total, 17.0, 1e-12, "children weights sum to the root's");

    // A new row missing texture is split the same way at prediction.
    let data = t.dataset();
    let proba = tree.predict_proba(&data).unwrap();
    for row in [7usize, 9] {
        // Samples 8 and 10: their probabilities sum to 1.
        let p = &proba[row * 2..row * 2 + 2];
        assert_near(p[0] + p[1], 1.0, 1e-12, "proba sums to 1");
    }
}

// ---------------------------------------------------------------------------------------------
// Mitchell's PlayTennis (text 001) and AIMA's restaurant (text 004).

#[test]
fn playtennis_gains_and_tree() {
    let t = Table::load("playtennis");
    let s = scores(&t, Criterion::Entropy);
    assert_gains(
        &t,
        &s,
        &[
            ("Outlook", 0.246),
            ("Humidity", 0.151),
            ("Wind", 0.048),
            ("Temperature", 0.029),
        ],
    );
    let (p_yes, p_no) = (t.class("Yes"), t.class("No"));
    let tree = grow_id3(&t);
    // Outlook: Sunny, Overcast, Rain; Humidity: High, Normal; Wind: Weak, Strong.
    let expected = multi(
        t.col("Outlook"),
        vec![
            multi(t.col("Humidity"), vec![leaf(p_no), leaf(p_yes)]),
            leaf(p_yes),
            multi(t.col("Wind"), vec![leaf(p_yes), leaf(p_no)]),
        ],
    );
    check_tree(&tree, &expected);
    assert_eq!(tree.predict_class(&t.dataset()).unwrap(), t.y);
}

#[test]
fn restaurant_gains_and_tree() {
    let t = Table::load("restaurant");
    let s = scores(&t, Criterion::Entropy);
    assert_gains(
        &t,
        &s,
        &[
            ("Alternate", 0.0),
            ("Bar", 0.0),
            ("Patrons", 0.541),
            ("Type", 0.0),
        ],
    );
    let (yes, no) = (t.class("Yes"), t.class("No"));
    let tree = grow_id3(&t);
    // Patrons: None, Some, Full; Hungry: Yes, No; Type: French, Italian, Thai, Burger;
    // FriSat: Yes, No.
    let expected = multi(
        t.col("Patrons"),
        vec![
            leaf(no),
            leaf(yes),
            multi(
                t.col("Hungry"),
                vec![
                    multi(
                        t.col("Type"),
                        vec![
                            leaf(no),
                            leaf(no),
                            multi(t.col("FriSat"), vec![leaf(yes), leaf(no)]),
                            leaf(yes),
                        ],
                    ),
                    leaf(no),
                ],
            ),
        ],
    );
    check_tree(&tree, &expected);

    // Patrons = Full holds samples 2, 4, 5, 9, 10, 12 (2 yes, 4 no); Hungry = Yes of those is
    // 2, 4, 10, 12 (2 yes, 2 no: a tie that goes to the parent's class, no). Its Type = French
    // branch is empty: the 2:2 distribution and class no.
    let full = descend(&tree, &[t.code("Patrons", "Full") as usize]);
    assert_eq!(tree.label(full), no);
    let hungry = descend(&tree, &[2, 0]);
    assert_eq!(tree.value(hungry), &[2.0, 2.0]);
    assert_eq!(tree.label(hungry), no);
    let french = descend(&tree, &[2, 0, t.code("Type", "French") as usize]);
    assert_eq!(tree.weight(french), 0.0);
    assert_eq!(tree.value(french), &[2.0, 2.0]);
    assert_eq!(tree.label(french), no);
    // Under Patrons = Full, five attributes tie at 0.2516 (Hungry has the lowest index
    // among them): Ent(2/6) − 4/6 · Ent(2/4) = 0.9183 − 0.6667.
    let sf = tree.node_scores(full).unwrap();
    assert_near(
        sf[t.col("Hungry")].gain,
        h(&[2.0, 4.0]) - 4.0 / 6.0 * h(&[2.0, 2.0]),
        1e-9,
        "Gain(Full, Hungry)",
    );
    assert_eq!(tree.predict_class(&t.dataset()).unwrap(), t.y);
}
