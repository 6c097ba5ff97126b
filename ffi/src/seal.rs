//! The storage check of `hpa_autoscaler`: digests of the state's bytes, kept beside it, that
//! every call compares before it reads the state and stores again for what it changed.
//!
//! The bytes in use are cut in parts, each with its own digest: the fixed part (the marker,
//! the rings' headers, the engine's other fields, of its summaries of folded entries those in
//! use, and the messages' bytes in use), the scale
//! events' ring (its bytes in use), the stored configuration (its bytes in use; evaluations
//! only read it) and the recommendations' ring in blocks of [`BLOCK`] bytes (each block's
//! bytes in use). A call compares every digest on entry, since it may read any
//! part (an evaluation scans a whole stabilization window when its kept extreme no longer
//! holds, and drops any number of aged entries: which blocks it decodes is known only once
//! it ran, docs/performance.md#storage-check); an evaluation then stores again only the fixed part's and those of the blocks its
//! recommendation reached (the ring's ends moved over them), not the whole history's. The
//! recommendations' bytes in use only change where the ring's ends move, or all of them when
//! the ring moves its bytes to its start (its head then goes back), and an evaluation writes
//! no scale event; other calls store every digest.
//!
//! A digest is made of rounds over the part's 64-bit words and its length (each round a
//! multiplication by an odd constant and a rotation, as xxHash's: a bijection of the chain
//! and of the word, three instructions a word), so any change of a single word of a part
//! changes its digest, and other changes go unnoticed with a probability of about 2^-64 per
//! part. A history block's digest is one chain; the other parts' deal their words to four
//! chains, folded at the end ([`Chain`]): every call digests them, and four chains overlap
//! where one waited five cycles a word for its multiplications (110 ns of a 10-pod
//! evaluation's 870). Damage to bytes not in use changes no decision and is not looked at.

use core::mem::{offset_of, size_of};

use crate::autoscaler::State;

/// Bytes of a block of the recommendations' ring.
pub(crate) const BLOCK: usize = 128;
/// The history rings' capacities of the C API's autoscaler (the engine's defaults).
pub(crate) const RECOMMENDATION_CAPACITY: usize = hpa::autoscaler::DEFAULT_RECOMMENDATION_BYTES;
pub(crate) const EVENT_CAPACITY: usize = hpa::autoscaler::DEFAULT_EVENT_BYTES;
/// Blocks of the recommendations' ring (the last one may be shorter).
const BLOCKS: usize = RECOMMENDATION_CAPACITY.div_ceil(BLOCK);

/// The digests of a state's parts.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Seal {
    fixed: u64,
    events: u64,
    /// The stored configuration's (`hpa_autoscaler_configure`), which evaluations only read.
    config: u64,
    blocks: [u64; BLOCKS],
}

/// Bytes of a [`Seal`]: plain words, no padding.
pub(crate) const SEAL_BYTES: usize = 8 * (3 + BLOCKS);
const _: () = assert!(size_of::<Seal>() == SEAL_BYTES);

impl Seal {
    /// No digest yet (what [`Seal::of`] replaces).
    pub(crate) const NONE: Seal = Seal {
        fixed: 0,
        events: 0,
        config: 0,
        blocks: [0; BLOCKS],
    };

    /// The digests of every part of `state`.
    pub(crate) fn of(state: &State) -> Seal {
        let all = as_bytes(state);
        let ring = Ring::of(all);
        let mut blocks = [0; BLOCKS];
        for (i, digest) in blocks.iter_mut().enumerate() {
            *digest = ring.block(i);
        }
        Seal {
            fixed: fixed(state, all),
            events: events(all),
            config: config(state, all),
            blocks,
        }
    }
}

/// Where the engine's history rings are in a [`State`]'s bytes. `Autoscaler`, its `History`
/// and their rings are `repr(C)`: the history comes first in the autoscaler, the
/// recommendations' ring first in the history and the scale events' second, each ring its
/// header (oldest and newest instants, then the `u32` head and tail of its live bytes) and then
/// its bytes. The sizes are asserted in `autoscaler.rs`; the test
/// `digests_cover_what_the_engine_fingerprints` checks the places against
/// `Autoscaler::fingerprint_into`.
pub(crate) mod layout {
    use super::{offset_of, State, EVENT_CAPACITY, RECOMMENDATION_CAPACITY};

    /// Bytes of a ring's header.
    pub(crate) const RING_HEADER: usize = 8 + 8 + 4 + 4;
    pub(crate) const RECOMMENDATION_HEADER: usize = offset_of!(State, engine);
    pub(crate) const RECOMMENDATION_BYTES: usize = RECOMMENDATION_HEADER + RING_HEADER;
    pub(crate) const EVENT_HEADER: usize = RECOMMENDATION_BYTES + RECOMMENDATION_CAPACITY;
    pub(crate) const EVENT_BYTES: usize = EVENT_HEADER + RING_HEADER;
    /// The engine's fields after the rings.
    pub(crate) const REST: usize = EVENT_BYTES + EVENT_CAPACITY;
    /// The history's summaries of folded entries come first there: per ring its generations'
    /// slots, then their count (a byte) and seven reserved bytes.
    pub(crate) const SLOT: usize = 8 + 4 + 4;
    pub(crate) const GENERATIONS: usize = hpa::history::GENERATIONS;
    pub(crate) const SLOTS: usize = GENERATIONS * SLOT;
    pub(crate) const FOLDED: usize = SLOTS + 8;
    /// The engine's fields after the two rings' summaries.
    pub(crate) const AFTER_FOLDED: usize = REST + 2 * FOLDED;
    // The places above are the engine's.
    const _: () =
        assert!(SLOT == hpa::history::SUMMARY_BYTES && FOLDED == hpa::history::FOLDED_BYTES);
    pub(crate) const MESSAGES: usize = offset_of!(State, messages);
}

/// A state's bytes.
fn as_bytes(state: &State) -> &[u8] {
    // SAFETY: a `State` is plain data without padding (asserted with `FIELD_BYTES` in
    // autoscaler.rs): all of its bytes are initialized, and readable as long as the reference.
    unsafe {
        core::slice::from_raw_parts(core::ptr::from_ref(state).cast::<u8>(), size_of::<State>())
    }
}

/// The `(head, tail)` of the ring whose header starts at `header`: its live bytes are
/// `bytes[head..tail]`, as the engine's `Region::live` takes them (none when out of range).
fn ends(all: &[u8], header: usize) -> (usize, usize) {
    let word = |at: usize| {
        all.get(header + at..header + at + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, |b| u32::from_ne_bytes(b) as usize)
    };
    (word(16), word(20))
}

/// The live bytes of the ring whose header starts at `header`, of `capacity` bytes.
pub(crate) fn live(all: &[u8], header: usize, capacity: usize) -> &[u8] {
    let (head, tail) = ends(all, header);
    all.get(header + layout::RING_HEADER..header + layout::RING_HEADER + capacity)
        .and_then(|bytes| bytes.get(head..tail))
        .unwrap_or(&[])
}

/// A digest being computed: four chains of rounds, the words of each run dealt to them (its
/// length to the first, its whole word `k` to chain `k % 4`, its partial last word, padded,
/// to the fourth), folded into one word at the end.
/// A round's multiplication waits for the previous round of its chain: on one chain the fixed
/// part and the configuration, read by every call, took five cycles a word; four chains overlap.
/// A change of any single word changes the one chain it went through, and the fold is a
/// bijection of each chain for fixed others.
struct Chain([u64; 4]);

/// xxHash64's primes, as `hpa::fingerprint` uses them.
const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// One round: a bijection of the chain for a fixed word and of the word for a fixed chain (an
/// odd multiplier, then a rotation that brings the product's mixed high bits down for the next
/// word, as xxHash's rounds do).
#[inline(always)]
fn round(chain: u64, w: u64) -> u64 {
    (chain ^ w).wrapping_mul(P2).rotate_left(31)
}

/// The little-endian word of a whole word's eight bytes (0 for fewer: never, as called).
#[inline(always)]
fn whole_word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

/// The little-endian word of up to eight bytes, padded with zeros. Two overlapping loads (of
/// four, two or one bytes) rather than a loop over the bytes: most parts end in a partial
/// word (texts, a direction's 12-byte policies), and the loop cost a fifth of their digests.
#[inline(always)]
fn word_of(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let at = |from: usize, to: usize| bytes.get(from..to).unwrap_or(&[]);
    let u32_at = |from: usize| {
        let b = at(from, from + 4).try_into().unwrap_or([0; 4]);
        u64::from(u32::from_le_bytes(b))
    };
    let u16_at = |from: usize| {
        let b = at(from, from + 2).try_into().unwrap_or([0; 2]);
        u64::from(u16::from_le_bytes(b))
    };
    // The second load ends at the last byte and overlaps the first: the bytes both hold are
    // equal, so or-ing them in place gives the bytes once.
    match n {
        8.. => whole_word(at(0, 8)),
        4..=7 => u32_at(0) | u32_at(n - 4) << (8 * (n - 4)),
        2..=3 => u16_at(0) | u16_at(n - 2) << (8 * (n - 2)),
        1 => u64::from(bytes.first().copied().unwrap_or(0)),
        _ => 0,
    }
}

/// One round of each chain over the four words of `q` (32 bytes).
#[inline(always)]
fn quad([a, b, c, d]: [u64; 4], q: &[u8]) -> [u64; 4] {
    let w = |i: usize| whole_word(q.get(i..i + 8).unwrap_or(&[]));
    [
        round(a, w(0)),
        round(b, w(8)),
        round(c, w(16)),
        round(d, w(24)),
    ]
}

impl Chain {
    /// Chains started from `seed` (each from its own value).
    #[inline(always)]
    fn new(seed: u64) -> Chain {
        Chain([seed, seed ^ P1, seed ^ P2, seed.rotate_left(32)])
    }

    /// Adds one word, to the first chain (as a run's length).
    #[inline(always)]
    fn word(&mut self, w: u64) {
        self.0[0] = round(self.0[0], w);
    }

    /// Adds the length of `bytes` and then its bytes, eight a word, the last padded.
    #[inline(always)]
    fn bytes(&mut self, bytes: &[u8]) {
        let [mut a, mut b, mut c, mut d] = self.0;
        a = round(a, bytes.len() as u64);
        let mut quads = bytes.chunks_exact(32);
        for q in &mut quads {
            [a, b, c, d] = quad([a, b, c, d], q);
        }
        // At most three whole words and a partial one are left.
        let mut words = quads.remainder().chunks_exact(8);
        for chain in [&mut a, &mut b, &mut c] {
            match words.next() {
                Some(w) => *chain = round(*chain, whole_word(w)),
                None => break,
            }
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            d = round(d, word_of(rest));
        }
        self.0 = [a, b, c, d];
    }

    /// The digest: the chains folded into one.
    #[inline(always)]
    fn finish(self) -> u64 {
        let [a, b, c, d] = self.0;
        round(round(round(round(P1, a), b), c), d)
    }
}

/// The fixed part's digest. Of each ring's summaries, the count and the slots the engine
/// reads: `slots[..count]`, or all of them when the count is beyond their number (a damaged
/// count: the engine's pruning and merging then read the first slots). A slot past the count
/// is written before the count takes it in, so its bytes are not in use (and a history seldom
/// folds anything: 2 × 128 bytes not digested twice an evaluation).
fn fixed(state: &State, all: &[u8]) -> u64 {
    let run = |from: usize, to: usize| all.get(from..to).unwrap_or(&[]);
    let mut c = Chain::new(P1);
    c.bytes(run(0, layout::RECOMMENDATION_BYTES));
    c.bytes(run(layout::EVENT_HEADER, layout::EVENT_BYTES));
    for folded in [layout::REST, layout::REST + layout::FOLDED] {
        let count = run(folded + layout::SLOTS, folded + layout::FOLDED);
        let used = count
            .first()
            .map_or(0, |&len| usize::from(len).min(layout::GENERATIONS));
        c.bytes(count);
        c.bytes(run(folded, folded + used * layout::SLOT));
    }
    c.bytes(run(layout::AFTER_FOLDED, layout::MESSAGES));
    for message in [
        &state.messages.scaling_active,
        &state.messages.update_failure,
    ] {
        c.word(u64::from(message.len));
        c.bytes(message.used());
    }
    c.finish()
}

/// The stored configuration's digest: its bytes in use.
fn config(state: &State, all: &[u8]) -> u64 {
    let mut c = Chain::new(P2 ^ P1);
    for run in state.config.used(all, offset_of!(State, config)) {
        c.bytes(run);
    }
    c.finish()
}

/// The scale events' ring's digest.
fn events(all: &[u8]) -> u64 {
    let mut c = Chain::new(P2);
    c.bytes(live(all, layout::EVENT_HEADER, EVENT_CAPACITY));
    c.finish()
}

/// The recommendations' ring: its bytes and the ends of the live ones.
struct Ring<'a> {
    bytes: &'a [u8],
    head: usize,
    tail: usize,
}

impl<'a> Ring<'a> {
    fn of(all: &'a [u8]) -> Ring<'a> {
        let (head, tail) = ends(all, layout::RECOMMENDATION_HEADER);
        let bytes = all
            .get(layout::RECOMMENDATION_BYTES..layout::EVENT_HEADER)
            .unwrap_or(&[]);
        // Ends the engine would not read (`Region::live`): no live bytes.
        let (head, tail) = if head <= tail && tail <= bytes.len() {
            (head, tail)
        } else {
            (0, 0)
        };
        Ring { bytes, head, tail }
    }

    /// The digest of block `i`: its bytes in use.
    #[inline(always)]
    fn block(&self, i: usize) -> u64 {
        let start = i * BLOCK;
        let seed = P1 ^ i as u64;
        // A block wholly in use (most of a long history's): the same words as below, without
        // the bounds and the remainder of a part-used one.
        let whole = self
            .bytes
            .get(start..start + BLOCK)
            .filter(|_| self.head <= start && start + BLOCK <= self.tail);
        if let Some(Ok(words)) = whole.map(<&[u8; BLOCK]>::try_from) {
            let mut c = round(seed, BLOCK as u64);
            for w in words.chunks_exact(8) {
                c = round(c, whole_word(w));
            }
            return c;
        }
        let end = (start + BLOCK).min(self.bytes.len());
        let live = self
            .bytes
            // `max` and `min`, not `clamp`, which asserts (and links a panic).
            .get(self.head.max(start).min(end)..self.tail.max(start).min(end))
            .unwrap_or(&[]);
        let mut c = round(seed, live.len() as u64);
        let mut words = live.chunks_exact(8);
        for w in &mut words {
            c = round(c, whole_word(w));
        }
        if !words.remainder().is_empty() {
            c = round(c, word_of(words.remainder()));
        }
        c
    }
}

/// Whether `seal` holds the digests of `state`'s parts.
pub(crate) fn holds(seal: &Seal, state: &State) -> bool {
    let all = as_bytes(state);
    let ring = Ring::of(all);
    seal.fixed == fixed(state, all)
        && seal.events == events(all)
        && seal.config == config(state, all)
        && seal
            .blocks
            .iter()
            .enumerate()
            .all(|(i, &digest)| digest == ring.block(i))
}

/// What an evaluation's digests depend on, taken before it: the recommendations' ring's ends
/// and the scale events' ring's header.
#[derive(Clone, Copy)]
pub(crate) struct Before {
    recommendations: (usize, usize),
    events_header: [u8; layout::RING_HEADER],
}

impl Before {
    pub(crate) fn of(state: &State) -> Before {
        let all = as_bytes(state);
        let mut events_header = [0; layout::RING_HEADER];
        let header = all.get(layout::EVENT_HEADER..layout::EVENT_BYTES);
        for (d, &b) in events_header.iter_mut().zip(header.unwrap_or(&[])) {
            *d = b;
        }
        Before {
            recommendations: ends(all, layout::RECOMMENDATION_HEADER),
            events_header,
        }
    }
}

/// `seal` updated for what an evaluation changed in `state` since `before`: the fixed part,
/// the blocks over which the recommendations' ends moved (every block when one went back:
/// the ring moved its bytes, or emptied) and, had its header changed, the events' ring.
pub(crate) fn after_evaluation(seal: &mut Seal, state: &State, before: &Before) {
    let all = as_bytes(state);
    seal.fixed = fixed(state, all);
    let now = Before::of(state);
    if now.events_header != before.events_header {
        seal.events = events(all);
    }
    let ((h0, t0), (h1, t1)) = (before.recommendations, now.recommendations);
    let moved = |a: usize, b: usize| a.min(b) / BLOCK..=(a.max(b) / BLOCK).min(BLOCKS - 1);
    let ring = Ring::of(all);
    let mut rehash = |blocks: core::ops::RangeInclusive<usize>| {
        for i in blocks {
            if let Some(digest) = seal.blocks.get_mut(i) {
                *digest = ring.block(i);
            }
        }
    };
    // Either end going back: the ring moved its bytes to its start, or emptied.
    if h1 < h0 || t1 < t0 {
        rehash(0..=BLOCKS - 1);
    } else {
        rehash(moved(h0, h1));
        rehash(moved(t0, t1));
    }
}

#[cfg(test)]
mod tests {
    use super::word_of;

    /// `word_of` against its definition: the bytes in place, zeros after them.
    #[test]
    fn a_partial_word_is_its_bytes_padded_with_zeros() {
        let bytes: [u8; 8] = [0x81, 0x02, 0xF3, 0x04, 0x95, 0x06, 0xA7, 0x08];
        for n in 0..=8 {
            let mut padded = [0_u8; 8];
            padded[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                word_of(&bytes[..n]),
                u64::from_le_bytes(padded),
                "{n} bytes"
            );
        }
    }
}
