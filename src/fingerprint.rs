//! A fast 64-bit fingerprint of plain data, to notice that state kept in memory the engine
//! does not own (the C API's `hpa_autoscaler`, in the caller's memory) was changed by someone
//! else: a stray write, a bit flip, another program's bytes.
//!
//! Not a cryptographic hash: it detects damage, not forgery. It is xxHash64's structure (four
//! lanes of its round, merged and mixed as it does; the tail of an input is padded to whole
//! words instead of xxHash's byte steps), so it is not xxHash64's value. Any change of a single
//! 64-bit word changes the fingerprint (each round is a bijection of the lane and of the word,
//! and so is each merge step); other changes go unnoticed with a probability of about 2^-64.
//! Four independent lanes: a host computes it at about a word a cycle. It is not meant for
//! small targets (a 64-bit multiply is a library call on a Cortex-M0), which keep their state
//! in their own memory.

/// xxHash64's primes.
const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;

/// The lanes' starting values (xxHash64's, seed 0).
const START: [u64; 4] = [P1.wrapping_add(P2), P2, 0, P1.wrapping_neg()];

/// A fingerprint being computed: feed it words and byte strings, then [`Fingerprint::finish`].
#[derive(Clone, Debug)]
pub struct Fingerprint {
    lanes: [u64; 4],
    /// The lane the next word goes to.
    next: usize,
}

impl Default for Fingerprint {
    fn default() -> Self {
        Self::new()
    }
}

/// xxHash64's round: a bijection of `acc` for a fixed `w`, and of `w` for a fixed `acc`.
#[inline(always)]
fn round(acc: u64, w: u64) -> u64 {
    acc.wrapping_add(w.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
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
        let i = self.next & 3;
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
    /// where their bytes agree), eight bytes a word, four words at a time.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        // The lanes in the order the next words go to them, so that whole blocks run without
        // the lane index (the same result as `word` for each word).
        let start = self.next & 3;
        let mut lanes = self.lanes;
        lanes.rotate_left(start);
        // Four named lanes: the four chains of multiplies then run side by side.
        let [mut a, mut b, mut c, mut d] = lanes;
        let mut blocks = bytes.chunks_exact(32);
        for block in &mut blocks {
            let word = |i: usize| {
                let bytes = block.get(i..i.wrapping_add(8)).unwrap_or(&[]);
                u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
            };
            a = round(a, word(0));
            b = round(b, word(8));
            c = round(c, word(16));
            d = round(d, word(24));
        }
        lanes = [a, b, c, d];
        lanes.rotate_right(start);
        self.lanes = lanes;
        for chunk in blocks.remainder().chunks(8) {
            let mut b = [0_u8; 8];
            for (d, &s) in b.iter_mut().zip(chunk) {
                *d = s;
            }
            self.word(u64::from_le_bytes(b));
        }
    }

    /// The fingerprint: xxHash64's merge of the lanes and its final avalanche.
    pub fn finish(&self) -> u64 {
        let [v1, v2, v3, v4] = self.lanes;
        let mut h = v1
            .rotate_left(1)
            .wrapping_add(v2.rotate_left(7))
            .wrapping_add(v3.rotate_left(12))
            .wrapping_add(v4.rotate_left(18));
        for v in self.lanes {
            h = (h ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4);
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

    /// Every single-bit flip of a buffer changes the fingerprint, and so does every length.
    #[test]
    fn every_bit_flip_and_every_length_changes_it() {
        let mut rng = crate::arith::test_rng(3);
        let data: Vec<u8> = (0..200).map(|_| rng() as u8).collect();
        let base = of(&data);
        let mut seen = BTreeSet::new();
        for bit in 0..data.len() * 8 {
            let mut d = data.clone();
            d[bit / 8] ^= 1 << (bit % 8);
            assert!(seen.insert(of(&d)), "bit {bit}");
        }
        assert!(!seen.contains(&base));
        for len in 0..data.len() {
            assert_ne!(of(&data[..len]), base);
        }
        assert_ne!(of(&[0; 8]), of(&[0; 16]));
        // Two flips anywhere (random pairs): never the original.
        for _ in 0..20_000 {
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
