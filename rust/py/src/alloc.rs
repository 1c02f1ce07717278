//! The extension's allocator: glibc's, except that a buffer of [`MAPPED_BYTES`] or more is
//! mapped from the system on its own and handed back the moment it is freed.
//!
//! Why: a fit frees and allocates buffers of the size of a column (sorted lists, gathered
//! rows, bins) on every thread of the pool. glibc raises its mmap threshold to the size of
//! the largest such buffer freed (up to 32 MiB), after which the next ones come from the
//! threads' arenas, which keep freed memory resident and apart (a buffer freed in one
//! thread's arena serves no other thread). On 2M x 20 float32 rows that added 60-150 MiB
//! (0.4-1.0x X) to the peak resident set of an exact fit over what it held at once, and
//! 0.2x to a histogram fit's, varying from run to run. Mapped on their own, large buffers
//! cost the resident set exactly their size while they live. Python's and NumPy's memory
//! is not affected: this allocator serves the extension's Rust code only.

use std::alloc::{GlobalAlloc, Layout, System};

/// Buffers at least this large are mapped on their own: large enough that the system calls
/// and first-touch page faults are a small part of filling them, small enough that a
/// node-sized buffer of a large fit is one.
const MAPPED_BYTES: usize = 4 << 20;

/// The alignment a fresh mapping guarantees (a page, the smallest on every Linux platform).
const PAGE: usize = 4096;

pub(crate) struct Allocator;

impl Allocator {
    fn mapped(layout: Layout) -> bool {
        layout.size() >= MAPPED_BYTES && layout.align() <= PAGE
    }
}

// SAFETY: every pointer handed out is either System's (returned to System) or a fresh
// private anonymous mapping of at least `layout.size()` bytes, page-aligned (so aligned for
// any `layout.align() <= PAGE`), unmapped once with the same size; `Self::mapped` decides
// which from the layout alone, which `dealloc` and `realloc` receive unchanged.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::mapped(layout) {
            map(layout.size())
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::mapped(layout) {
            map(layout.size()) // anonymous mappings are zero-filled
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::mapped(layout) {
            // SAFETY: `ptr` is a mapping of `layout.size()` bytes made by `map`.
            unsafe { libc::munmap(ptr.cast(), layout.size()) };
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `GlobalAlloc::realloc`'s contract makes this a valid layout.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (Self::mapped(layout), Self::mapped(new)) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => {
                // SAFETY: `ptr` is a mapping of `layout.size()` bytes made by `map`; the
                // kernel moves or grows it in place, keeping its contents.
                let moved = unsafe {
                    libc::mremap(ptr.cast(), layout.size(), new_size, libc::MREMAP_MAYMOVE)
                };
                if moved == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    moved.cast()
                }
            }
            _ => {
                // SAFETY: `new` is a valid layout of non-zero size (the caller's contract).
                let fresh = unsafe { self.alloc(new) };
                if !fresh.is_null() {
                    // SAFETY: both blocks hold at least the smaller size and do not overlap;
                    // `ptr` is freed with the layout it was allocated with.
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, fresh, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                fresh
            }
        }
    }
}

/// A fresh private anonymous mapping of `size` bytes, or null (out of memory).
fn map(size: usize) -> *mut u8 {
    // SAFETY: a new anonymous mapping aliases nothing.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if at == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        at.cast()
    }
}
