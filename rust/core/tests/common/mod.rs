//! Shared helpers of the integration tests: the texts' CSVs parsed by hand (category codes in
//! the order of `*.meta.json`, an empty cell is missing), owned columns that lend a
//! [`Dataset`], and a node-by-node checker of expected trees.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use quercus_core::{CategoricalColumn, Column, Dataset, NodeId, NodeKind, Target, Tree};

/// A deterministic generator (SplitMix64), so the tests' data need no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Relative-or-absolute closeness used by the property tests.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

// ---------------------------------------------------------------------------------------------
// A minimal JSON reader, enough for the `*.meta.json` files (no new dependencies).

#[derive(Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn parse(text: &str) -> Json {
        let chars: Vec<char> = text.chars().collect();
        let mut pos = 0;
        let value = parse_value(&chars, &mut pos);
        skip_ws(&chars, &mut pos);
        assert_eq!(pos, chars.len(), "trailing characters in JSON");
        value
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("expected a JSON string, got {other:?}"),
        }
    }

    pub fn as_array(&self) -> &[Json] {
        match self {
            Json::Arr(items) => items,
            other => panic!("expected a JSON array, got {other:?}"),
        }
    }
}

fn skip_ws(chars: &[char], pos: &mut usize) {
    while chars.get(*pos).is_some_and(|c| c.is_whitespace()) {
        *pos += 1;
    }
}

fn expect_char(chars: &[char], pos: &mut usize, c: char) {
    skip_ws(chars, pos);
    assert_eq!(chars.get(*pos), Some(&c), "JSON: expected {c:?} at {pos}");
    *pos += 1;
}

fn parse_string(chars: &[char], pos: &mut usize) -> String {
    expect_char(chars, pos, '"');
    let mut out = String::new();
    loop {
        let c = *chars.get(*pos).expect("unterminated JSON string");
        *pos += 1;
        match c {
            '"' => return out,
            '\\' => {
                let e = *chars.get(*pos).expect("bad escape");
                *pos += 1;
                out.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'u' => {
                        let hex: String = chars[*pos..*pos + 4].iter().collect();
                        *pos += 4;
                        char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap()
                    }
                    other => other,
                });
            }
            c => out.push(c),
        }
    }
}

fn parse_value(chars: &[char], pos: &mut usize) -> Json {
    skip_ws(chars, pos);
    match chars.get(*pos).copied() {
        Some('"') => Json::Str(parse_string(chars, pos)),
        Some('[') => {
            *pos += 1;
            let mut items = Vec::new();
            skip_ws(chars, pos);
            if chars.get(*pos) == Some(&']') {
                *pos += 1;
                return Json::Arr(items);
            }
            loop {
                items.push(parse_value(chars, pos));
                skip_ws(chars, pos);
                match chars.get(*pos) {
                    Some(',') => *pos += 1,
                    Some(']') => {
                        *pos += 1;
                        return Json::Arr(items);
                    }
                    other => panic!("JSON: unexpected {other:?} in array"),
                }
            }
        }
        Some('{') => {
            *pos += 1;
            let mut fields = Vec::new();
            skip_ws(chars, pos);
            if chars.get(*pos) == Some(&'}') {
                *pos += 1;
                return Json::Obj(fields);
            }
            loop {
                let key = parse_string(chars, pos);
                expect_char(chars, pos, ':');
                fields.push((key, parse_value(chars, pos)));
                skip_ws(chars, pos);
                match chars.get(*pos) {
                    Some(',') => *pos += 1,
                    Some('}') => {
                        *pos += 1;
                        return Json::Obj(fields);
                    }
                    other => panic!("JSON: unexpected {other:?} in object"),
                }
            }
        }
        Some(_) => {
            let start = *pos;
            while chars
                .get(*pos)
                .is_some_and(|c| !matches!(c, ',' | ']' | '}') && !c.is_whitespace())
            {
                *pos += 1;
            }
            let word: String = chars[start..*pos].iter().collect();
            match word.as_str() {
                "null" => Json::Null,
                "true" => Json::Bool(true),
                "false" => Json::Bool(false),
                w => Json::Num(w.parse().expect("JSON number")),
            }
        }
        None => panic!("JSON: unexpected end"),
    }
}

// ---------------------------------------------------------------------------------------------
// Owned columns.

/// An owned feature column that lends a [`Column`].
#[derive(Debug, Clone, PartialEq)]
pub enum OwnedCol {
    /// NaN is missing.
    Num(Vec<f64>),
    Cat {
        codes: Vec<u32>,
        missing: Vec<bool>,
        n_categories: u32,
        ordered: bool,
    },
}

impl OwnedCol {
    pub fn cat(codes: Vec<u32>, n_categories: u32) -> OwnedCol {
        let missing = vec![false; codes.len()];
        OwnedCol::Cat {
            codes,
            missing,
            n_categories,
            ordered: false,
        }
    }

    /// Categorical column from optional codes (`None` = missing).
    pub fn cat_opt(codes: &[Option<u32>], n_categories: u32, ordered: bool) -> OwnedCol {
        OwnedCol::Cat {
            codes: codes.iter().map(|c| c.unwrap_or(0)).collect(),
            missing: codes.iter().map(Option::is_none).collect(),
            n_categories,
            ordered,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            OwnedCol::Num(v) => v.len(),
            OwnedCol::Cat { codes, .. } => codes.len(),
        }
    }

    pub fn column(&self) -> Column<'_> {
        match self {
            OwnedCol::Num(v) => Column::numeric(v),
            OwnedCol::Cat {
                codes,
                missing,
                n_categories,
                ordered,
            } => Column::Categorical(CategoricalColumn {
                codes,
                missing_mask: Some(missing),
                n_categories: *n_categories,
                ordered: *ordered,
            }),
        }
    }

    /// The rows `rows` of this column, in that order.
    pub fn select(&self, rows: &[usize]) -> OwnedCol {
        match self {
            OwnedCol::Num(v) => OwnedCol::Num(rows.iter().map(|&r| v[r]).collect()),
            OwnedCol::Cat {
                codes,
                missing,
                n_categories,
                ordered,
            } => OwnedCol::Cat {
                codes: rows.iter().map(|&r| codes[r]).collect(),
                missing: rows.iter().map(|&r| missing[r]).collect(),
                n_categories: *n_categories,
                ordered: *ordered,
            },
        }
    }

    pub fn is_missing(&self, row: usize) -> bool {
        match self {
            OwnedCol::Num(v) => v[row].is_nan(),
            OwnedCol::Cat { missing, .. } => missing[row],
        }
    }
}

/// Borrows owned columns as a [`Dataset`].
pub fn dataset(cols: &[OwnedCol]) -> Dataset<'_> {
    Dataset::new(cols.iter().map(OwnedCol::column).collect()).expect("consistent columns")
}

// ---------------------------------------------------------------------------------------------
// The texts' data sets.

/// One of the texts' tables: feature columns and a class target.
#[derive(Debug, Clone)]
pub struct Table {
    pub names: Vec<String>,
    /// Category names of each categorical column (empty for a numeric one).
    pub levels: Vec<Vec<String>>,
    pub cols: Vec<OwnedCol>,
    pub y: Vec<u32>,
    pub classes: Vec<String>,
}

fn data_path(file: &str) -> String {
    format!(
        "{}/../../python/quercus/data/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

impl Table {
    /// Loads `python/quercus/data/{name}.csv` with the orders of `{name}.meta.json`.
    pub fn load(name: &str) -> Table {
        let meta_text = std::fs::read_to_string(data_path(&format!("{name}.meta.json")))
            .expect("meta.json readable");
        let meta = Json::parse(&meta_text);
        let target = meta.get("target").expect("target").as_str().to_string();
        let attrs = meta.get("attributes").expect("attributes").as_array();
        let attr = |col: &str| -> (bool, Vec<String>) {
            let a = attrs
                .iter()
                .find(|a| a.get("name").map(Json::as_str) == Some(col))
                .unwrap_or_else(|| panic!("attribute {col} not in meta.json"));
            let numeric = a.get("type").map(Json::as_str) == Some("numeric");
            let values = a
                .get("values")
                .map(|v| {
                    v.as_array()
                        .iter()
                        .map(|s| s.as_str().to_string())
                        .collect()
                })
                .unwrap_or_default();
            (numeric, values)
        };

        let csv = std::fs::read_to_string(data_path(&format!("{name}.csv"))).expect("csv");
        let mut lines = csv.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<String> = lines
            .next()
            .expect("header")
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        let rows: Vec<Vec<String>> = lines
            .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
            .collect();
        for r in &rows {
            assert_eq!(r.len(), header.len(), "ragged CSV row in {name}");
        }

        let mut table = Table {
            names: Vec::new(),
            levels: Vec::new(),
            cols: Vec::new(),
            y: Vec::new(),
            classes: Vec::new(),
        };
        for (j, col) in header.iter().enumerate() {
            let (numeric, values) = attr(col);
            let cells: Vec<&str> = rows.iter().map(|r| r[j].as_str()).collect();
            if *col == target {
                table.y = cells
                    .iter()
                    .map(|c| values.iter().position(|v| v == c).expect("known class") as u32)
                    .collect();
                table.classes = values;
                continue;
            }
            let owned = if numeric {
                OwnedCol::Num(
                    cells
                        .iter()
                        .map(|c| {
                            if c.is_empty() {
                                f64::NAN
                            } else {
                                c.parse().expect("number")
                            }
                        })
                        .collect(),
                )
            } else {
                let codes: Vec<Option<u32>> = cells
                    .iter()
                    .map(|c| {
                        if c.is_empty() {
                            None
                        } else {
                            Some(
                                values
                                    .iter()
                                    .position(|v| v == c)
                                    .unwrap_or_else(|| panic!("unknown value {c} of {col}"))
                                    as u32,
                            )
                        }
                    })
                    .collect();
                OwnedCol::cat_opt(&codes, values.len() as u32, false)
            };
            table.names.push(col.clone());
            table.levels.push(if numeric { Vec::new() } else { values });
            table.cols.push(owned);
        }
        table
    }

    pub fn n_rows(&self) -> usize {
        self.y.len()
    }

    pub fn dataset(&self) -> Dataset<'_> {
        dataset(&self.cols)
    }

    pub fn target(&self) -> Target<'_> {
        Target::Classes {
            codes: &self.y,
            n_classes: self.classes.len(),
        }
    }

    pub fn unit_weights(&self) -> Vec<f64> {
        vec![1.0; self.n_rows()]
    }

    /// Index of the feature column `name`.
    pub fn col(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    /// Code of category `value` of column `name`.
    pub fn code(&self, name: &str, value: &str) -> u32 {
        let j = self.col(name);
        self.levels[j]
            .iter()
            .position(|v| v == value)
            .unwrap_or_else(|| panic!("no value {value} in {name}")) as u32
    }

    /// Code of class `name`.
    pub fn class(&self, name: &str) -> u32 {
        self.classes
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no class {name}")) as u32
    }

    /// The table restricted to the text's 1-based sample numbers `samples`.
    pub fn samples(&self, samples: &[usize]) -> Table {
        let rows: Vec<usize> = samples.iter().map(|s| s - 1).collect();
        Table {
            names: self.names.clone(),
            levels: self.levels.clone(),
            cols: self.cols.iter().map(|c| c.select(&rows)).collect(),
            y: rows.iter().map(|&r| self.y[r]).collect(),
            classes: self.classes.clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Expected trees.

/// A tree as a text draws it.
#[derive(Debug, Clone)]
pub enum Expect {
    /// A leaf predicting this class code.
    Leaf(u32),
    /// A multiway split on a feature, one child per category code in order.
    Multi(usize, Vec<Expect>),
    /// `x <= threshold` → first child, else second.
    Num(usize, f64, Box<Expect>, Box<Expect>),
}

pub fn leaf(class: u32) -> Expect {
    Expect::Leaf(class)
}

pub fn multi(feature: usize, children: Vec<Expect>) -> Expect {
    Expect::Multi(feature, children)
}

pub fn num(feature: usize, threshold: f64, le: Expect, gt: Expect) -> Expect {
    Expect::Num(feature, threshold, Box::new(le), Box::new(gt))
}

impl Expect {
    pub fn n_nodes(&self) -> usize {
        match self {
            Expect::Leaf(_) => 1,
            Expect::Multi(_, kids) => 1 + kids.iter().map(Expect::n_nodes).sum::<usize>(),
            Expect::Num(_, _, a, b) => 1 + a.n_nodes() + b.n_nodes(),
        }
    }
}

/// Checks `tree` against `expect` node by node, from the root.
pub fn check_tree(tree: &Tree, expect: &Expect) {
    check_node(tree, NodeId::ROOT, expect, "root");
    assert_eq!(tree.n_nodes(), expect.n_nodes(), "number of nodes");
}

fn check_node(tree: &Tree, node: NodeId, expect: &Expect, path: &str) {
    let children: Vec<NodeId> = tree.children(node).collect();
    match expect {
        Expect::Leaf(class) => {
            assert_eq!(tree.kind(node), NodeKind::Leaf, "{path}: expected a leaf");
            assert!(children.is_empty(), "{path}: a leaf has no children");
            assert_eq!(tree.label(node), *class, "{path}: leaf class");
        }
        Expect::Multi(feature, kids) => {
            assert_eq!(
                tree.kind(node),
                NodeKind::Multiway { feature: *feature },
                "{path}: expected a multiway split on feature {feature}"
            );
            assert_eq!(children.len(), kids.len(), "{path}: number of children");
            for (k, (child, e)) in children.iter().zip(kids).enumerate() {
                check_node(tree, *child, e, &format!("{path}/f{feature}={k}"));
            }
        }
        Expect::Num(feature, threshold, le, gt) => match tree.kind(node) {
            NodeKind::Numeric {
                feature: f,
                threshold: t,
            } => {
                assert_eq!(f, *feature, "{path}: numeric feature");
                assert!(
                    (t - threshold).abs() < 1e-9,
                    "{path}: threshold {t}, expected {threshold}"
                );
                assert_eq!(
                    children.len(),
                    2,
                    "{path}: a numeric split has two children"
                );
                check_node(
                    tree,
                    children[0],
                    le,
                    &format!("{path}/f{feature}<={threshold}"),
                );
                check_node(
                    tree,
                    children[1],
                    gt,
                    &format!("{path}/f{feature}>{threshold}"),
                );
            }
            other => panic!("{path}: expected a numeric split on {feature}, got {other:?}"),
        },
    }
}

/// The node reached from the root by following child indices `path`.
pub fn descend(tree: &Tree, path: &[usize]) -> NodeId {
    let mut node = NodeId::ROOT;
    for &k in path {
        node = tree
            .children(node)
            .nth(k)
            .unwrap_or_else(|| panic!("node {node:?} has no child {k}"));
    }
    node
}
