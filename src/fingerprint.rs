//! A fast 64-bit fingerprint of plain data, to notice that state kept in memory the engine
//! does not own (the C API's `hpa_autoscaler`, in the caller's memory) was changed by someone
//! else: a stray write, a bit flip, another program's bytes.
//!
//! Not a cryptographic hash: it detects damage, not forgery. Eight lanes, each a chain of one
//! round per word (`(lane ^ word) × P`, then an xorshift: one multiply a word, a bijection of the lane
//! and of the word), merged and mixed as xxHash64 merges and mixes its lanes; the tail of an
//! input is padded to whole words. Any change of a single 64-bit word changes the fingerprint
//! (each round and each merge step is a bijection); other changes go unnoticed with a
//! probability of about 2^-64. Eight independent chains keep a host's multiplier busy: about a
//! word a cycle. It is not meant for small targets (a 64-bit multiply is a library call on a
//! Cortex-M0), which keep their state in their own memory.

/// xxHash64's primes.
const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;

/// Lanes: independent chains of multiplies.
const LANES: usize = 8;

/// The lanes' starting values: distinct, so that words swapped between lanes differ.
const START: [u64; LANES] = [P1, P2, P3, P4, !P1, !P2, !P3, !P4];

/// A fingerprint being computed: feed it words and byte strings, then [`Fingerprint::finish`].
#[derive(Clone, Debug)]
pub struct Fingerprint {
    lanes: [u64; LANES],
    /// The lane the next word goes to.
    next: usize,
}

impl Default for Fingerprint {
    fn default() -> Self {
        Self::new()
    }
}

/// One round: a bijection of `acc` for a fixed `w`, and of `w` for a fixed `acc` (xor, a
/// multiply by an odd constant and an xorshift each are), with one multiply. The xorshift
/// carries the product's top bit, which a multiply passes on unmixed, into the next round's
/// multiply.
#[inline(always)]
fn round(acc: u64, w: u64) -> u64 {
    let x = (acc ^ w).wrapping_mul(P2);
    x ^ (x >> 29)
}

impl Fingerprint {
    /// A fingerprint of nothing yet.
    pub const fn new() -> Self {
        Fingerprint {
            lanes: START,
            next: 0,
        }
    }

    /// Adds one word.
    #[inline]
    pub fn word(&mut self, w: u64) {
        let i = self.next % LANES;
        if let Some(lane) = self.lanes.get_mut(i) {
            *lane = round(*lane, w);
        }
        self.next = i.wrapping_add(1);
    }

    /// Adds a signed word.
    #[inline]
    pub fn int(&mut self, v: i64) {
        self.word(v.cast_unsigned());
    }

    /// Adds a byte string and its length (so that strings of different lengths differ even
    /// where their bytes agree), eight bytes a word, the last one padded with zeros: the same
    /// words, to the same lanes, as [`Fingerprint::word`] for each.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut rest = bytes;
        // Single words until the next one goes to the first lane; then whole blocks, a word to
        // each lane, on a copy of the lanes the compiler keeps in registers (no lane index).
        while !self.next.is_multiple_of(LANES) {
            let Some((w, after)) = rest.split_first_chunk::<8>() else {
                break;
            };
            self.word(u64::from_le_bytes(*w));
            rest = after;
        }
        if self.next.is_multiple_of(LANES) && rest.len() >= 8 * LANES {
            let mut lanes = self.lanes;
            let mut blocks = 0_usize;
            while let Some((block, after)) = rest.split_first_chunk::<{ 8 * LANES }>() {
                for (acc, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                    *acc = round(*acc, u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
                }
                rest = after;
                blocks = blocks.wrapping_add(1);
            }
            self.lanes = lanes;
            self.next = self.next.wrapping_add(blocks.wrapping_mul(LANES));
        }
        while let Some((w, after)) = rest.split_first_chunk::<8>() {
            self.word(u64::from_le_bytes(*w));
            rest = after;
        }
        if !rest.is_empty() {
            let mut b = [0_u8; 8];
            for (d, &s) in b.iter_mut().zip(rest) {
                *d = s;
            }
            self.word(u64::from_le_bytes(b));
        }
    }

    /// The fingerprint: the lanes merged as xxHash64 merges its four, and its final
    /// avalanche.
    pub fn finish(&self) -> u64 {
        let mut h = 0_u64;
        for (v, r) in self.lanes.iter().zip([1, 7, 12, 18, 23, 31, 38, 45]) {
            h = h.wrapping_add(v.rotate_left(r));
        }
        for v in self.lanes {
            h = (h ^ v.wrapping_mul(P2).rotate_left(31).wrapping_mul(P1))
                .wrapping_mul(P1)
                .wrapping_add(P4);
        }
        h = (h ^ (h >> 33)).wrapping_mul(P2);
        h = (h ^ (h >> 29)).wrapping_mul(P3);
        h ^ (h >> 32)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::collections::BTreeSet;
    use std::vec::Vec;

    use super::*;

    fn of(bytes: &[u8]) -> u64 {
        let mut f = Fingerprint::new();
        f.bytes(bytes);
        f.finish()
    }

    /// `bytes` feeds the words `word` would get: its length, then its bytes eight at a time,
    /// the last word padded with zeros, whatever lane the string starts on.
    #[test]
    fn bytes_are_their_words() {
        let mut rng = crate::arith::test_rng(11);
        // Miri interprets each step thousands of times slower: fewer random cases there.
        for _ in 0..if cfg!(miri) { 30 } else { 2_000 } {
            let before = (rng() % 20) as usize;
            let len = (rng() % 300) as usize;
            let data: Vec<u8> = (0..len).map(|_| rng() as u8).collect();
            let (mut fast, mut slow) = (Fingerprint::new(), Fingerprint::new());
            for _ in 0..before {
                let w = rng();
                fast.word(w);
                slow.word(w);
            }
            fast.bytes(&data);
            slow.word(len as u64);
            for chunk in data.chunks(8) {
                let mut b = [0_u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                slow.word(u64::from_le_bytes(b));
            }
            assert_eq!(fast.lanes, slow.lanes, "{before} words, then {len} bytes");
            assert_eq!(fast.next % LANES, slow.next % LANES);
            fast.word(7);
            slow.word(7);
            assert_eq!(fast.finish(), slow.finish());
        }
    }

    /// Every single-bit flip of a buffer changes the fingerprint, and so does every length.
    #[test]
    fn every_bit_flip_and_every_length_changes_it() {
        let mut rng = crate::arith::test_rng(3);
        let data: Vec<u8> = (0..200).map(|_| rng() as u8).collect();
        let base = of(&data);
        // Under Miri, which interprets each step thousands of times slower: every 13th flip (a
        // stride through every word and every bit position), every 7th length, every 9th bit
        // of the pairs and 100 random pairs.
        let (stride, length_stride, pair_stride, random_pairs) = if cfg!(miri) {
            (13, 7, 9, 100)
        } else {
            (1, 1, 1, 20_000)
        };
        let mut seen = BTreeSet::new();
        for bit in (0..data.len() * 8).step_by(stride) {
            let mut d = data.clone();
            d[bit / 8] ^= 1 << (bit % 8);
            assert!(seen.insert(of(&d)), "bit {bit}");
        }
        assert!(!seen.contains(&base));
        for len in (0..data.len()).step_by(length_stride) {
            assert_ne!(of(&data[..len]), base);
        }
        assert_ne!(of(&[0; 8]), of(&[0; 16]));
        // One flip in a word and one in the same lane's next word (the next round's input can
        // cancel what the last round passed on linearly): never the original.
        for a in (0..64).step_by(pair_stride) {
            for b in (0..64).step_by(pair_stride) {
                let mut d = data.clone();
                d[8 + a / 8] ^= 1 << (a % 8);
                d[8 + 8 * LANES + b / 8] ^= 1 << (b % 8);
                assert_ne!(of(&d), base, "bits {a} and {b}");
            }
        }
        // Two flips anywhere (random pairs): never the original.
        for _ in 0..random_pairs {
            let mut d = data.clone();
            for _ in 0..2 {
                let bit = (rng() % (data.len() as u64 * 8)) as usize;
                d[bit / 8] ^= 1 << (bit % 8);
            }
            if d != data {
                assert_ne!(of(&d), base);
            }
        }
    }
}
