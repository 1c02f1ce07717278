//! Text columns read in place for prediction: Arrow string views (the layout of a Polars
//! String column), each row's label looked up in a table of the tree's categories as the
//! walk stages its chunk of rows, so a text column costs no cast, no copy and no pass of its
//! own (the lookups share the walk's threads).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// Bytes of one view.
const VIEW: usize = 16;
/// The longest string a view holds itself (after its 4-byte length).
const INLINE: usize = 12;

/// The tree's code of each of its categories by label. A label of at most [`INLINE`] bytes
/// is keyed by the view that holds it (its length and bytes, zero after them), so finding a
/// short string costs one hash of 16 bytes and no read of its data; a longer one by its
/// bytes.
#[derive(Debug, Clone, Default)]
pub struct TextLookup {
    short: HashMap<u128, u32, BuildHasherDefault<ViewHasher>>,
    long: HashMap<Box<[u8]>, u32>,
}

impl TextLookup {
    /// The lookup of `categories`, the tree's code of each being its position.
    pub fn new<S: AsRef<str>>(categories: &[S]) -> Self {
        let mut lookup = TextLookup::default();
        for (code, label) in (0u32..).zip(categories) {
            let bytes = label.as_ref().as_bytes();
            if bytes.len() <= INLINE {
                // The label's view as a little-endian number: its length in the low 4
                // bytes, then its bytes.
                let view = (0..).zip(bytes).fold(bytes.len() as u128, |v, (i, &b)| {
                    v | u128::from(b) << (32 + 8 * i)
                });
                lookup.short.entry(view).or_insert(code);
            } else {
                lookup.long.entry(bytes.into()).or_insert(code);
            }
        }
        lookup
    }

    /// The tree's code of the string `view` stands for (a longer one's bytes in `data`,
    /// where buffer `b` starts at `starts[b]`); None for a label the tree never saw, or a
    /// view that points outside the data.
    #[inline(always)] // in the staging loop: a call's register saves were a fifth of a lookup
    fn code(&self, view: &[u8; VIEW], data: &[u8], starts: &[u64]) -> Option<u32> {
        let view = u128::from_le_bytes(*view);
        let word = |bit: u32| (view >> bit) as u32 as usize;
        let len = word(0);
        if let Some(mask) = SHORT_MASKS.get(len) {
            // The bytes past the string are zero by Arrow's format; masked all the same,
            // so that a writer that leaves them dirty reads alike.
            return self.short.get(&(view & mask)).copied();
        }
        let start = usize::try_from(*starts.get(word(64))?)
            .ok()?
            .checked_add(word(96))?;
        self.long
            .get(data.get(start..start.checked_add(len)?)?)
            .copied()
    }
}

/// The bits of a view that hold a short string of each length (its length and its bytes): a
/// table, not a shift, since a 128-bit shift by a variable takes a dozen instructions.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
const SHORT_MASKS: [u128; INLINE + 1] = {
    let mut masks = [0u128; INLINE + 1];
    let mut len = 0;
    while len <= INLINE {
        masks[len] = u128::MAX >> (96 - 8 * len);
        len += 1;
    }
    masks
};

/// The hash of a short label's view: a folded multiply of its two halves, which spreads
/// every input bit over the high bits (the table's tags) and the low ones (its buckets).
#[derive(Debug, Default)]
struct ViewHasher(u64);

impl Hasher for ViewHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u128(&mut self, x: u128) {
        let (low, high) = (x as u64, (x >> 64) as u64);
        let product =
            u128::from(low ^ 0x243f_6a88_85a3_08d3) * u128::from(high ^ 0x1319_8a2e_0370_7344);
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    /// Not reached (the keys are `u128`s); any bytes hash alike here all the same.
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A column of Arrow string views with the lookup of the tree's categories.
#[derive(Debug, Clone, Copy)]
pub struct Text<'a> {
    /// 16 bytes a row: the views.
    pub views: &'a [u8],
    /// Every data buffer of the strings longer than 12 bytes, one after another.
    pub data: &'a [u8],
    /// Where each data buffer starts in `data`.
    pub starts: &'a [u64],
    pub lookup: &'a TextLookup,
}

impl Text<'_> {
    pub(super) fn len(&self) -> usize {
        self.views.len() / VIEW
    }

    /// The tree's code of row `row`; None for a label the tree never saw or a row past the
    /// column (its nulls are the frame's: [`super::frame::Validity`]).
    #[inline]
    pub(super) fn code(&self, row: usize) -> Option<u32> {
        let view = self.views.get(row * VIEW..(row + 1) * VIEW)?;
        self.lookup
            .code(view.try_into().ok()?, self.data, self.starts)
    }

    /// The tree's codes of `rows` into `dst` as [`Text::code`] gives them, `missing` where
    /// it gives none: one loop over the views, without a per-row check of their bounds.
    pub(super) fn stage(&self, rows: Range<usize>, dst: &mut [u64], missing: u64) {
        let Some(views) = self.views.get(rows.start * VIEW..rows.end * VIEW) else {
            dst.fill(missing); // rows past the column
            return;
        };
        for (d, view) in dst.iter_mut().zip(views.chunks_exact(VIEW)) {
            let code = <&[u8; VIEW]>::try_from(view)
                .ok()
                .and_then(|v| self.lookup.code(v, self.data, self.starts));
            *d = code.map_or(missing, u64::from);
        }
    }
}

#[cfg(test)]
/// Arrow's views of `labels`: the short ones inline, the long ones in two data buffers
/// (each long label in the buffer of its parity), as a writer lays them out.
pub(super) fn views(labels: &[&str]) -> (Vec<u8>, Vec<u8>, Vec<u64>) {
    let mut buffers: [Vec<u8>; 2] = Default::default();
    let mut views = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        let bytes = label.as_bytes();
        let mut view = [0u8; VIEW];
        view[..4].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        if bytes.len() <= INLINE {
            view[4..4 + bytes.len()].copy_from_slice(bytes);
        } else {
            let buffer = &mut buffers[i % 2];
            view[4..8].copy_from_slice(&bytes[..4]);
            view[8..12].copy_from_slice(&((i % 2) as u32).to_le_bytes());
            view[12..].copy_from_slice(&(buffer.len() as u32).to_le_bytes());
            buffer.extend_from_slice(bytes);
        }
        views.extend_from_slice(&view);
    }
    let starts = vec![0, buffers[0].len() as u64];
    (views, buffers.concat(), starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_short_and_long_read_as_the_tree_codes() {
        let categories = [
            "red",
            "",
            "a-label-longer-than-twelve",
            "twelve bytes",
            "thirteen byte",
        ];
        let lookup = TextLookup::new(&categories);
        let labels = [
            "thirteen byte",
            "red",
            "a-label-longer-than-twelve",
            "",
            "blue",
            "twelve bytes",
            "a-label-longer-than-twelvE",
            "re",
        ];
        let (views, data, starts) = views(&labels);
        let text = Text {
            views: &views,
            data: &data,
            starts: &starts,
            lookup: &lookup,
        };
        let codes: Vec<_> = (0..text.len()).map(|row| text.code(row)).collect();
        let expected = [
            Some(4),
            Some(0),
            Some(2),
            Some(1),
            None,
            Some(3),
            None,
            None,
        ];
        assert_eq!(codes, expected);
        // Staged a range at a time, the codes are the same (a row past the column, missing).
        for rows in [0..8, 1..4, 5..8, 3..3, 8..9] {
            let mut staged = vec![7; rows.len()];
            text.stage(rows.clone(), &mut staged, u64::MAX);
            let one_by_one: Vec<_> = rows
                .map(|row| text.code(row).map_or(u64::MAX, u64::from))
                .collect();
            assert_eq!(staged, one_by_one);
        }
    }

    #[test]
    fn thousands_of_labels_each_find_their_code() {
        let labels: Vec<String> = (0..5000).map(|k| format!("k{k}")).collect();
        let lookup = TextLookup::new(&labels);
        let rows: Vec<String> = (0..6000).rev().map(|k| format!("k{k}")).collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let (views, data, starts) = views(&rows);
        let text = Text {
            views: &views,
            data: &data,
            starts: &starts,
            lookup: &lookup,
        };
        let codes: Vec<_> = (0..rows.len()).map(|row| text.code(row)).collect();
        let expected: Vec<_> = (0..6000u32)
            .rev()
            .map(|k| (k < 5000).then_some(k))
            .collect();
        assert_eq!(codes, expected);
        // A label listed twice keeps its first code.
        let twice = TextLookup::new(&["a", "b", "a"]);
        let (views, data, starts) = super::views(&["a"]);
        let text = Text {
            views: &views,
            data: &data,
            starts: &starts,
            lookup: &twice,
        };
        assert_eq!(text.code(0), Some(0));
    }

    #[test]
    fn dirty_bytes_past_a_short_string_and_bad_offsets_are_harmless() {
        let lookup = TextLookup::new(&["ab", "a-label-longer-than-twelve"]);
        let (mut views, data, starts) = views(&["ab", "a-label-longer-than-twelve"]);
        views[10] = 0xff; // past "ab"'s two bytes
        views[24] = 9; // the long label's buffer: one that does not exist
        let text = Text {
            views: &views,
            data: &data,
            starts: &starts,
            lookup: &lookup,
        };
        assert_eq!((text.code(0), text.code(1)), (Some(0), None));
    }
}
