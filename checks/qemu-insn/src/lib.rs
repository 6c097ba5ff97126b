//! A QEMU TCG plugin (plugin API version 1, QEMU 7.2) for the Cortex-M0 firmware's cost figures
//! (docs/firmware.md#cost-of-an-evaluation): it counts the guest instructions executed between
//! two marker functions, their cycles under the Cortex-M0 timings, and the longest stretch with
//! interrupts masked (`cpsid i` to `cpsie i`).
//!
//! Arguments: `begin=ADDR,end=ADDR`, the addresses (hex, as `nm` prints them; the Thumb bit may
//! be set) of the firmware's marker functions. A region runs from the first instruction of the
//! begin marker (included) to the first instruction of the end marker (excluded); at each end
//! the plugin prints one line on QEMU's standard output, where the firmware's semihosting lines
//! also go, so that it follows the firmware's own line that names the region:
//!
//! ```text
//! region insns 44343 cycles 70101 masked-insns 0 masked-cycles 0
//! ```
//!
//! With `profile=FILE` as well, each region also appends to FILE the instructions it executed
//! at each address, one line each (`<region number> <address, 8 hex digits> <count>`), for finding where
//! a region's instructions go: `checks/qemu-insn/profile` maps the addresses to the
//! firmware's functions.
//!
//! `masked-*` is the longest interrupt-masked stretch that ended inside the region: the
//! instructions after the `cpsid i` that masks interrupts, up to and including the one that
//! unmasks them. Without reading registers (API version 1 cannot), critical sections are
//! followed by their nesting: each `cpsid i` opens one (cortex-m's `critical-section`
//! implementation executes it on every acquire), each `msr primask, Rn` closes one (its release
//! restores the PRIMASK it read), and `cpsie i` closes all of them (older releases unmask with
//! it only at the outermost level).
//!
//! Cycles follow the Cortex-M0 Technical Reference Manual's instruction timings (ARM DDI 0432C,
//! table 3-1) with zero-wait-state memory: see [`cycles`].
//!
//! The API is declared here by hand (QEMU's `qemu-plugin.h` is not installed by the
//! distribution's packages); QEMU resolves these symbols in its own executable when it loads
//! the plugin.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::io::Write as _;
use std::sync::Mutex;

type PluginId = u64;

/// `struct qemu_plugin_tb` and `struct qemu_plugin_insn`: opaque handles.
#[repr(C)]
struct Tb {
    _opaque: [u8; 0],
}
#[repr(C)]
struct Insn {
    _opaque: [u8; 0],
}

type TbTransCb = extern "C" fn(PluginId, *mut Tb);
type VcpuUdataCb = extern "C" fn(c_uint, *mut c_void);

/// `QEMU_PLUGIN_CB_NO_REGS`: the callback reads no register.
const CB_NO_REGS: c_int = 0;

extern "C" {
    fn qemu_plugin_register_vcpu_tb_trans_cb(id: PluginId, cb: TbTransCb);
    fn qemu_plugin_register_vcpu_insn_exec_cb(
        insn: *mut Insn,
        cb: VcpuUdataCb,
        flags: c_int,
        userdata: *mut c_void,
    );
    fn qemu_plugin_tb_n_insns(tb: *const Tb) -> usize;
    fn qemu_plugin_tb_get_insn(tb: *const Tb, idx: usize) -> *mut Insn;
    fn qemu_plugin_insn_data(insn: *const Insn) -> *const c_void;
    fn qemu_plugin_insn_size(insn: *const Insn) -> usize;
    fn qemu_plugin_insn_vaddr(insn: *const Insn) -> u64;
}

/// The plugin API version this plugin is written against (`QEMU_PLUGIN_VERSION` of QEMU 7.2).
#[no_mangle]
pub static qemu_plugin_version: c_int = 1;

/// Marker addresses (Thumb bit cleared).
struct Markers {
    begin: u64,
    end: u64,
}

/// Counters of the whole run, and of the region and masked stretch in progress.
struct Counts {
    insns: u64,
    cycles: u64,
    /// Fall-through address of the conditional branch just executed: the next instruction
    /// tells whether it was taken (2 more cycles).
    branch_fallthrough: Option<u64>,
    /// `(insns, cycles)` when the region began.
    region: Option<(u64, u64)>,
    /// `(insns, cycles)` after the `cpsid i` that masked interrupts.
    masked: Option<(u64, u64)>,
    /// Critical sections open (nesting depth).
    depth: u32,
    /// The longest stretch that ended in the current region: `(insns, cycles)`.
    longest: (u64, u64),
}

static MARKERS: Mutex<Markers> = Mutex::new(Markers { begin: 0, end: 0 });

/// With `profile=FILE`: where each region's instructions were executed.
struct Profile {
    file: std::fs::File,
    /// Regions ended so far.
    regions: u64,
    /// Executions per address in the region in progress.
    counts: HashMap<u64, u64>,
}

static PROFILE: Mutex<Option<Profile>> = Mutex::new(None);

impl Profile {
    /// Counts one execution at `vaddr` while a region is in progress.
    fn count(vaddr: u64) {
        if let Some(p) = PROFILE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            *p.counts.entry(vaddr).or_insert(0) += 1;
        }
    }

    /// Writes the region's counts, by address, and starts the next region's.
    fn region_ended() {
        if let Some(p) = PROFILE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            let mut counts: Vec<_> = p.counts.drain().collect();
            counts.sort_unstable();
            for (vaddr, n) in counts {
                let _ = writeln!(p.file, "{} {vaddr:08x} {n}", p.regions);
            }
            p.regions += 1;
        }
    }
}
static COUNTS: Mutex<Counts> = Mutex::new(Counts {
    insns: 0,
    cycles: 0,
    branch_fallthrough: None,
    region: None,
    masked: None,
    depth: 0,
    longest: (0, 0),
});

/// What an instruction does for the counters, packed into the callback's user data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Plain = 0,
    ConditionalBranch = 1,
    MaskInterrupts = 2,
    UnmaskInterrupts = 3,
    RestoreMask = 4,
    RegionBegin = 5,
    RegionEnd = 6,
}

const CPSID_I: u16 = 0xB672;
const CPSIE_I: u16 = 0xB662;
/// `msr primask, Rn`: `0xF38n 0x8810`.
fn is_msr_primask(first: u16, second: u16) -> bool {
    first & 0xFFF0 == 0xF380 && second == 0x8810
}

/// Cortex-M0 cycles of one instruction (its first halfword and, for a 32-bit one, its second),
/// not counting the 2 more of a taken conditional branch. From the Cortex-M0 TRM's table 3-1,
/// zero wait states: data processing, moves, extends, reverses, CPS, NOP 1 (`MULS` 1: the fast
/// multiplier; the small one takes 32); an `ADD` or `MOV` to the PC 3; every load and store 2;
/// `LDM`/`STM`/`PUSH` 1 + N registers; `POP` 1 + N, 4 + N with the PC (N counting the PC: the
/// higher reading of the manual); `B` 3, `B<cond>` 1 (3 taken), `BL` 4, `BX`/`BLX` 3; `MRS` 3,
/// `MSR` 4, `DMB`/`DSB`/`ISB` 4; `WFE`/`WFI` 2.
pub fn cycles(first: u16, second: u16) -> u64 {
    let registers = |list: u16| u64::from(list.count_ones());
    match first {
        // 32-bit encodings: BL, MSR, the barriers, MRS.
        f if f >> 11 >= 0b11101 => match (f, second) {
            (f, s) if f & 0xF800 == 0xF000 && s & 0xD000 == 0xD000 => 4,
            (f, _) if f & 0xFFF0 == 0xF380 => 4,
            (0xF3BF, _) => 4,
            (0xF3EF, _) => 3,
            _ => 1,
        },
        // ADD/CMP/MOV with high registers, BX, BLX.
        f if f & 0xFC00 == 0x4400 => {
            let op = (f >> 8) & 3;
            let rd = ((f >> 4) & 8) | (f & 7);
            match op {
                3 => 3,
                0 | 2 if rd == 15 => 3,
                _ => 1,
            }
        }
        // Loads and stores: PC-relative, register offset, immediate offset, SP-relative.
        f if f & 0xF800 == 0x4800 || (0x5000..0xA000).contains(&f) => 2,
        // PUSH (LR in bit 8 counts as a register), POP (PC in bit 8).
        f if f & 0xFE00 == 0xB400 => 1 + registers(f & 0x1FF),
        f if f & 0xFE00 == 0xBC00 => {
            if f & 0x100 != 0 {
                4 + registers(f & 0x1FF)
            } else {
                1 + registers(f & 0xFF)
            }
        }
        // WFE, WFI.
        0xBF20 | 0xBF30 => 2,
        // STM, LDM.
        f if f & 0xF000 == 0xC000 => 1 + registers(f & 0xFF),
        // B<cond> (not UDF, SVC): 1 not taken.
        f if f & 0xF000 == 0xD000 && f & 0x0E00 != 0x0E00 => 1,
        // B.
        f if f & 0xF800 == 0xE000 => 3,
        _ => 1,
    }
}

fn is_conditional_branch(first: u16) -> bool {
    first & 0xF000 == 0xD000 && first & 0x0E00 != 0x0E00
}

fn role(vaddr: u64, first: u16, second: u16, markers: &Markers) -> Role {
    if vaddr == markers.begin {
        Role::RegionBegin
    } else if vaddr == markers.end {
        Role::RegionEnd
    } else if first == CPSID_I {
        Role::MaskInterrupts
    } else if first == CPSIE_I {
        Role::UnmaskInterrupts
    } else if is_msr_primask(first, second) {
        Role::RestoreMask
    } else if is_conditional_branch(first) {
        Role::ConditionalBranch
    } else {
        Role::Plain
    }
}

/// User data of an instruction's callback: `vaddr << 16 | cycles << 8 | role` (guest addresses
/// are 32-bit, so it fits a 64-bit host pointer), no allocation per translation.
fn pack(vaddr: u64, cycles: u64, role: Role) -> usize {
    ((vaddr << 16) | (cycles.min(255) << 8) | role as u64) as usize
}

fn unpack(data: usize) -> (u64, u64, Role) {
    let data = data as u64;
    let role = match data & 0xFF {
        1 => Role::ConditionalBranch,
        2 => Role::MaskInterrupts,
        3 => Role::UnmaskInterrupts,
        4 => Role::RestoreMask,
        5 => Role::RegionBegin,
        6 => Role::RegionEnd,
        _ => Role::Plain,
    };
    (data >> 16, (data >> 8) & 0xFF, role)
}

extern "C" fn on_insn(_vcpu: c_uint, userdata: *mut c_void) {
    let (vaddr, cost, role) = unpack(userdata as usize);
    let mut c = COUNTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(fallthrough) = c.branch_fallthrough.take() {
        if vaddr != fallthrough {
            c.cycles += 2;
        }
    }
    // Region bounds are read before this instruction counts: the end marker's first
    // instruction is outside its region.
    match role {
        Role::RegionBegin => {
            c.region = Some((c.insns, c.cycles));
            c.longest = (0, 0);
        }
        Role::RegionEnd => {
            Profile::region_ended();
            // Written, not `println!`: a closed output must not panic inside QEMU.
            let mut out = std::io::stdout();
            let _ = match c.region.take() {
                Some((insns, cycles)) => writeln!(
                    out,
                    "region insns {} cycles {} masked-insns {} masked-cycles {}",
                    c.insns - insns,
                    c.cycles - cycles,
                    c.longest.0,
                    c.longest.1
                ),
                None => writeln!(out, "region error: end marker without a begin"),
            };
        }
        _ => {}
    }
    c.insns += 1;
    c.cycles += cost;
    if c.region.is_some() {
        Profile::count(vaddr);
    }
    match role {
        Role::ConditionalBranch => c.branch_fallthrough = Some(vaddr + 2),
        Role::MaskInterrupts => {
            if c.depth == 0 {
                c.masked = Some((c.insns, c.cycles));
            }
            c.depth += 1;
        }
        Role::UnmaskInterrupts => {
            c.depth = 0;
            c.unmasked();
        }
        Role::RestoreMask => {
            c.depth = c.depth.saturating_sub(1);
            if c.depth == 0 {
                c.unmasked();
            }
        }
        _ => {}
    }
}

impl Counts {
    /// Interrupts are unmasked: ends the stretch in progress.
    fn unmasked(&mut self) {
        if let Some((insns, cycles)) = self.masked.take() {
            let stretch = (self.insns - insns, self.cycles - cycles);
            if stretch.0 > self.longest.0 {
                self.longest = stretch;
            }
        }
    }
}

extern "C" fn on_translate(_id: PluginId, tb: *mut Tb) {
    let markers = MARKERS.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: `tb` and its instructions are valid during this callback (QEMU's contract); an
    // instruction's data holds `size` bytes.
    unsafe {
        for i in 0..qemu_plugin_tb_n_insns(tb) {
            let insn = qemu_plugin_tb_get_insn(tb, i);
            let vaddr = qemu_plugin_insn_vaddr(insn);
            let size = qemu_plugin_insn_size(insn);
            let data = qemu_plugin_insn_data(insn).cast::<u8>();
            let halfword = |k: usize| {
                if 2 * k + 1 < size {
                    u16::from_le_bytes([*data.add(2 * k), *data.add(2 * k + 1)])
                } else {
                    0
                }
            };
            let (first, second) = (halfword(0), halfword(1));
            let data = pack(
                vaddr,
                cycles(first, second),
                role(vaddr, first, second, &markers),
            );
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, CB_NO_REGS, data as *mut c_void);
        }
    }
}

fn parse_address(text: &str) -> Option<u64> {
    let hex = text.trim_start_matches("0x");
    u64::from_str_radix(hex, 16).ok().map(|a| a & !1)
}

/// Reads `begin=ADDR` and `end=ADDR` and registers the translation callback; nonzero (QEMU
/// refuses the plugin and says so) if either is missing.
///
/// # Safety
///
/// Called by QEMU with `argc` valid C strings in `argv`.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: PluginId,
    _info: *const c_void,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let mut markers = MARKERS.lock().unwrap_or_else(|e| e.into_inner());
    for i in 0..usize::try_from(argc).unwrap_or(0) {
        // SAFETY: QEMU passes `argc` NUL-terminated strings.
        let arg = unsafe { CStr::from_ptr(*argv.add(i)) }.to_string_lossy();
        match arg.split_once('=') {
            Some(("begin", a)) => markers.begin = parse_address(a).unwrap_or(0),
            Some(("end", a)) => markers.end = parse_address(a).unwrap_or(0),
            Some(("profile", path)) => match std::fs::File::create(path) {
                Ok(file) => {
                    *PROFILE.lock().unwrap_or_else(|e| e.into_inner()) = Some(Profile {
                        file,
                        regions: 0,
                        counts: HashMap::new(),
                    })
                }
                Err(e) => {
                    eprintln!("hpa-qemu-insn: cannot create the profile {path}: {e}");
                    return 1;
                }
            },
            _ => {
                eprintln!(
                    "hpa-qemu-insn: unknown argument {arg} (expected begin=ADDR,end=ADDR[,profile=FILE])"
                );
                return 1;
            }
        }
    }
    if markers.begin == 0 || markers.end == 0 || markers.begin == markers.end {
        eprintln!("hpa-qemu-insn: needs begin=ADDR,end=ADDR, two distinct marker addresses");
        return 1;
    }
    // SAFETY: `id` is this plugin's; the callback has the API's signature.
    unsafe { qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate) };
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cortex_m0_timings() {
        let cases: &[(u16, u16, u64, &str)] = &[
            (0x1840, 0, 1, "adds r0, r0, r1"),
            (0x4348, 0, 1, "muls r0, r1"),
            (0x4487, 0, 3, "add pc, r0"),
            (0x4687, 0, 3, "mov pc, r0"),
            (0x4680, 0, 1, "mov r8, r0"),
            (0x4770, 0, 3, "bx lr"),
            (0x4780, 0, 3, "blx r0"),
            (0x4801, 0, 2, "ldr r0, [pc, #4]"),
            (0x5840, 0, 2, "ldr r0, [r0, r1]"),
            (0x6800, 0, 2, "ldr r0, [r0]"),
            (0x7000, 0, 2, "strb r0, [r0]"),
            (0x8800, 0, 2, "ldrh r0, [r0]"),
            (0x9000, 0, 2, "str r0, [sp]"),
            (0xA000, 0, 1, "adr r0, pc"),
            (0xB081, 0, 1, "sub sp, #4"),
            (0xB5F0, 0, 6, "push {r4-r7, lr}"),
            (0xBCF0, 0, 5, "pop {r4-r7}"),
            (0xBDF0, 0, 9, "pop {r4-r7, pc}"),
            (0xC80F, 0, 5, "ldm r0!, {r0-r3}"),
            (0xD001, 0, 1, "beq (not taken)"),
            (0xE7FE, 0, 3, "b ."),
            (0xF000, 0xF800, 4, "bl"),
            (0xF3EF, 0x8010, 3, "mrs r0, primask"),
            (0xF380, 0x8810, 4, "msr primask, r0"),
            (0xF3BF, 0x8F5F, 4, "dmb"),
            (CPSID_I, 0, 1, "cpsid i"),
            (CPSIE_I, 0, 1, "cpsie i"),
            (0xBF30, 0, 2, "wfi"),
        ];
        for &(first, second, expected, text) in cases {
            assert_eq!(cycles(first, second), expected, "{text}");
        }
    }

    #[test]
    fn roles_and_packing() {
        let markers = Markers {
            begin: 0x100,
            end: 0x104,
        };
        assert_eq!(role(0x100, 0, 0, &markers), Role::RegionBegin);
        assert_eq!(role(0x104, 0, 0, &markers), Role::RegionEnd);
        assert_eq!(role(0x200, CPSID_I, 0, &markers), Role::MaskInterrupts);
        assert_eq!(role(0x200, CPSIE_I, 0, &markers), Role::UnmaskInterrupts);
        assert_eq!(role(0x200, 0xF384, 0x8810, &markers), Role::RestoreMask);
        assert_eq!(role(0x200, 0xF384, 0x8811, &markers), Role::Plain);
        assert_eq!(role(0x200, 0xD1FC, 0, &markers), Role::ConditionalBranch);
        assert_eq!(role(0x200, 0xDF00, 0, &markers), Role::Plain);
        for r in [Role::Plain, Role::RegionEnd, Role::RestoreMask] {
            assert_eq!(unpack(pack(0x0003_fffe, 9, r)), (0x0003_fffe, 9, r));
        }
        assert_eq!(parse_address("00000a41"), Some(0xa40));
    }
}
