//! Trees as the search finds them: a few tests in preorder, before they become an arena
//! [`crate::Tree`] (see `assemble`). Leaves carry nothing: their class or mean is whatever
//! the training rows that reach them give.

/// A test the search can make at a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Test {
    /// Rows of ordering `column` with rank `<= left` go left; `right` is the next rank among
    /// the node's rows, so the threshold lies midway between the two values.
    Threshold { column: u32, left: u32, right: u32 },
    /// Rows of nominal feature `nominal` whose slot (category, or missing) has its bit set in
    /// `left` go left.
    Subset { nominal: u32, left: u64 },
}

/// A tree in preorder: a split (`Some`) is followed by its left subtree, then its right one;
/// `None` is a leaf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sol {
    pub nodes: Vec<Option<Test>>,
}

impl Sol {
    pub(crate) fn leaf() -> Sol {
        Sol { nodes: vec![None] }
    }

    /// A stump: `test` with two leaves.
    pub(crate) fn stump(test: Test) -> Sol {
        Sol {
            nodes: vec![Some(test), None, None],
        }
    }

    /// `test` over the trees `left` and `right`.
    pub(crate) fn split(test: Test, left: &Sol, right: &Sol) -> Sol {
        let mut nodes = Vec::with_capacity(1 + left.nodes.len() + right.nodes.len());
        nodes.push(Some(test));
        nodes.extend_from_slice(&left.nodes);
        nodes.extend_from_slice(&right.nodes);
        Sol { nodes }
    }

    #[cfg(test)]
    pub(crate) fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_none()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preorder_composition() {
        let t = Test::Threshold {
            column: 0,
            left: 1,
            right: 2,
        };
        let s = Sol::split(t, &Sol::stump(t), &Sol::leaf());
        assert_eq!(s.nodes, vec![Some(t), Some(t), None, None, None]);
        assert_eq!(s.n_leaves(), 3);
    }
}
