//! The `cursor-stream` command: everything is in the library (`app`), which the tests drive
//! too. Here too: the binary's allocator.

/// The allocator, with the `mimalloc` feature (on by default; a library user's build, with
/// `default-features = false`, compiles no C).
#[cfg(feature = "mimalloc")]
mod allocator {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::ffi::c_void;

    use libmimalloc_sys::{
        mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
        mi_zalloc_aligned,
    };

    /// The largest allocation mimalloc makes; larger ones are the system's (glibc's malloc).
    ///
    /// `get`'s programs build a value for every input and drop it: jaq's values are many small
    /// allocations (a string is two, an object three), which mimalloc makes and frees in a
    /// third of the instructions glibc's malloc takes — with it `get` keeps up with the jaq
    /// binary, which uses mimalloc for the same reason. Large buffers are another matter: the
    /// read buffer that grows to a 100 MB line, a page of `transcript --html`. glibc gives
    /// their memory back to the system when they are freed, and grows them in place
    /// (`mremap`); mimalloc keeps what it freed for a while and copies what it grows, which
    /// raised the views' peak memory past their goals (27 MiB where `text`'s goal is 16, twice
    /// a 100 MB line) when it made every allocation. Split at 64 KiB, every memory test keeps
    /// its goal and the engine's allocations are all mimalloc's.
    const SMALL: usize = 64 << 10;

    /// The alignment every block of mimalloc has (a word): a smaller one needs no asking.
    const WORD: usize = std::mem::size_of::<usize>();

    /// Small allocations to mimalloc, large ones to the system. Which one made a block follows
    /// from its size, which Rust gives again when the block is freed or grown
    /// (`GlobalAlloc`'s contract: the same layout), so each block goes back where it came from.
    struct Split;

    // SAFETY: each call goes to one allocator chosen by the layout's size, the same for a block
    // from its allocation to its release; a block that crosses the limit when it is reallocated
    // is moved from one allocator to the other (allocated there, copied, freed here). mimalloc's
    // blocks are word aligned: a larger alignment is asked of its aligned functions.
    unsafe impl GlobalAlloc for Split {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let (size, align) = (layout.size(), layout.align());
            // SAFETY: mimalloc's functions take any size and a power of two as alignment (a
            // `Layout`'s is); the system's is given the caller's layout, as its contract asks.
            unsafe {
                if size > SMALL {
                    System.alloc(layout)
                } else if align <= WORD {
                    mi_malloc(size).cast()
                } else {
                    mi_malloc_aligned(size, align).cast()
                }
            }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let (size, align) = (layout.size(), layout.align());
            // SAFETY: as `alloc`.
            unsafe {
                if size > SMALL {
                    System.alloc_zeroed(layout)
                } else if align <= WORD {
                    mi_zalloc(size).cast()
                } else {
                    mi_zalloc_aligned(size, align).cast()
                }
            }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` was allocated with `layout` (the caller's promise), so by the
            // allocator its size chooses.
            unsafe {
                if layout.size() > SMALL {
                    System.dealloc(ptr, layout);
                } else {
                    mi_free(ptr.cast::<c_void>());
                }
            }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let align = layout.align();
            // SAFETY: `ptr` was allocated with `layout` by the allocator its size chooses; the
            // new size is non-zero and valid with this alignment (the caller's promise), and
            // the block is then the allocator's that the new size chooses.
            unsafe {
                match (layout.size() > SMALL, new_size > SMALL) {
                    (false, false) if align <= WORD => mi_realloc(ptr.cast(), new_size).cast(),
                    (false, false) => mi_realloc_aligned(ptr.cast(), new_size, align).cast(),
                    (true, true) => System.realloc(ptr, layout, new_size),
                    _ => {
                        let new_layout = Layout::from_size_align_unchecked(new_size, align);
                        let new = self.alloc(new_layout);
                        if !new.is_null() {
                            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                            self.dealloc(ptr, layout);
                        }
                        new
                    }
                }
            }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Split = Split;
}

fn main() -> std::process::ExitCode {
    cursor_stream::cli_main()
}
