//! Text columns read in place for prediction: Arrow string views (the layout of a Polars
//! String column) or Arrow strings by offsets (`string`, `large_string`: pyarrow's and
//! pandas's), each row's label looked up in a table of the tree's categories as the walk
//! stages its chunk of rows, so a text column costs no cast, no copy and no pass of its own
//! (the lookups share the walk's threads).

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
            match short_view(bytes) {
                Some(view) => lookup.short.entry(view).or_insert(code),
                None => lookup.long.entry(bytes.into()).or_insert(code),
            };
        }
        lookup
    }

    /// The tree's code of the label `data[start..end]`; None for a label the tree never saw
    /// or a span outside the data.
    #[inline(always)] // in the staging loop, as `code`
    fn code_of(&self, data: &[u8], start: usize, end: usize) -> Option<u32> {
        let len = end.checked_sub(start)?;
        // A short label's view from one 16-byte read where the data goes on that far (its
        // bytes moved past the length, the rest masked off), rather than a copy of its bytes.
        if let (Some(mask), Some(word)) = (SHORT_MASKS.get(len), data.get(start..start + VIEW)) {
            let word = u128::from_le_bytes(word.try_into().ok()?);
            return self
                .short
                .get(&((word << 32 | len as u128) & mask))
                .copied();
        }
        let bytes = data.get(start..end)?;
        match short_view(bytes) {
            Some(view) => self.short.get(&view).copied(),
            None => self.long.get(bytes).copied(),
        }
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

/// The view of a label of at most [`INLINE`] bytes as a little-endian number (its length in
/// the low 4 bytes, then its bytes, zero after them); None for a longer one.
#[inline]
fn short_view(bytes: &[u8]) -> Option<u128> {
    let mut view = [0u8; VIEW];
    view.get_mut(4..4 + bytes.len())?.copy_from_slice(bytes);
    let len = bytes.len() as u32; // at most INLINE
    view.get_mut(..4)?.copy_from_slice(&len.to_le_bytes());
    Some(u128::from_le_bytes(view))
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

/// The offsets of a column of Arrow strings: 32-bit (`string`) or 64-bit (`large_string`).
#[derive(Debug, Clone, Copy)]
pub enum Offsets<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
}

/// A column of Arrow strings with the lookup of the tree's categories: row `i`'s label is
/// `data[offsets[i]..offsets[i + 1]]` (the offsets of the rows only, one more than them).
#[derive(Debug, Clone, Copy)]
pub struct Strings<'a> {
    pub offsets: Offsets<'a>,
    pub data: &'a [u8],
    pub lookup: &'a TextLookup,
}

impl Strings<'_> {
    pub(super) fn len(&self) -> usize {
        match self.offsets {
            Offsets::I32(o) => o.len(),
            Offsets::I64(o) => o.len(),
        }
        .saturating_sub(1)
    }

    /// The tree's code of row `row`; None for a label the tree never saw, a row past the
    /// column, or offsets outside the data.
    #[inline]
    pub(super) fn code(&self, row: usize) -> Option<u32> {
        let (start, end) = match self.offsets {
            Offsets::I32(o) => (
                usize::try_from(*o.get(row)?).ok()?,
                usize::try_from(*o.get(row + 1)?).ok()?,
            ),
            Offsets::I64(o) => (
                usize::try_from(*o.get(row)?).ok()?,
                usize::try_from(*o.get(row + 1)?).ok()?,
            ),
        };
        self.lookup.code_of(self.data, start, end)
    }

    /// The tree's codes of `rows` into `dst` as [`Strings::code`] gives them, `missing`
    /// where it gives none: one loop over the rows' offsets, read as pairs, without a check
    /// of their bounds or of their width per row.
    pub(super) fn stage(&self, rows: Range<usize>, dst: &mut [u64], missing: u64) {
        fn each<T: Copy + TryInto<usize>>(
            offsets: Option<&[T]>,
            data: &[u8],
            lookup: &TextLookup,
            dst: &mut [u64],
            missing: u64,
        ) {
            let Some(offsets) = offsets else {
                dst.fill(missing); // rows past the column
                return;
            };
            for (d, pair) in dst.iter_mut().zip(offsets.windows(2)) {
                let code = match *pair {
                    [start, end] => match (start.try_into(), end.try_into()) {
                        (Ok(start), Ok(end)) => lookup.code_of(data, start, end),
                        _ => None,
                    },
                    _ => None,
                };
                *d = code.map_or(missing, u64::from);
            }
        }
        let span = rows.start..rows.end.saturating_add(1);
        match self.offsets {
            Offsets::I32(o) => each(o.get(span), self.data, self.lookup, dst, missing),
            Offsets::I64(o) => each(o.get(span), self.data, self.lookup, dst, missing),
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
    fn strings_by_offsets_read_as_their_views() {
        let categories = ["red", "", "a-label-longer-than-twelve", "twelve bytes"];
        let lookup = TextLookup::new(&categories);
        let labels = [
            "twelve bytes",
            "",
            "blue",
            "a-label-longer-than-twelve",
            "red",
            "re",
        ];
        let mut data = b"junk".to_vec();
        let mut offsets = vec![4i64];
        for label in labels {
            data.extend_from_slice(label.as_bytes());
            offsets.push(data.len() as i64);
        }
        let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let (views, view_data, starts) = views(&labels);
        let text = Text {
            views: &views,
            data: &view_data,
            starts: &starts,
            lookup: &lookup,
        };
        for offsets in [Offsets::I64(&offsets), Offsets::I32(&narrow)] {
            let strings = Strings {
                offsets,
                data: &data,
                lookup: &lookup,
            };
            assert_eq!(strings.len(), labels.len());
            let codes: Vec<_> = (0..=labels.len()).map(|row| strings.code(row)).collect();
            let by_views: Vec<_> = (0..=labels.len()).map(|row| text.code(row)).collect();
            assert_eq!(codes, by_views);
            assert_eq!(codes[..5], [Some(3), Some(1), None, Some(2), Some(0)]);
            let mut staged = vec![7; 4];
            strings.stage(2..6, &mut staged, u64::MAX);
            assert_eq!(staged, [u64::MAX, 2, 0, u64::MAX]);
        }
        // Offsets that leave the data, or run backwards, read as missing.
        let bad = [0i32, 3, 99, 1];
        let strings = Strings {
            offsets: Offsets::I32(&bad),
            data: b"red",
            lookup: &lookup,
        };
        assert_eq!(
            (strings.code(0), strings.code(1), strings.code(2)),
            (Some(0), None, None)
        );
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
