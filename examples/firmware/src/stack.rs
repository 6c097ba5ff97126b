//! Stack high-water mark by painting: fill the free stack below the current stack pointer
//! with a pattern, run the code, and find the lowest word that changed.

use core::ptr::{read_volatile, write_volatile};

/// The pattern painted on the free stack.
const PAINT: u32 = 0xDEAD_BEEF;
/// Left unpainted just below the stack pointer (this function's own calls use it).
const MARGIN: usize = 64;

extern "C" {
    /// End of static RAM (`.bss`/`.uninit`), the stack's lowest usable address (cortex-m-rt).
    static mut __sheap: u32;
}

/// Runs `f` and returns the bytes of stack it used below the caller's stack pointer, its
/// results included (`f` runs in a frame of its own, below the painted start, so everything it
/// stores is counted; results leave through what it captures). Usage under `MARGIN` bytes is
/// reported as `MARGIN`.
#[inline(never)]
pub fn measure(f: impl FnOnce()) -> usize {
    let sp = cortex_m::register::msp::read() as usize;
    // Only the address of the linker symbol is taken.
    let bottom = core::ptr::addr_of_mut!(__sheap) as usize;
    let top = sp.saturating_sub(MARGIN) & !3;
    let mut a = bottom;
    while a < top {
        // SAFETY: [bottom, top) is free stack below the stack pointer, word aligned.
        unsafe { write_volatile(a as *mut u32, PAINT) };
        a += 4;
    }
    run(f);
    let mut lowest = top;
    let mut a = bottom;
    while a < top {
        // SAFETY: as above; the memory is only read.
        if unsafe { read_volatile(a as *const u32) } != PAINT {
            lowest = a;
            break;
        }
        a += 4;
    }
    sp.saturating_sub(lowest)
}

/// `f` in a frame of its own, allocated after the painting.
#[inline(never)]
fn run(f: impl FnOnce()) {
    f()
}
