/// splitmix64: a small, well-mixed deterministic generator. A seed gives the same sequence
/// on every machine, so a randomized test's inputs are fixed by its seeds.
pub struct Rng(u64);

impl Rng {
    /// A generator whose first draw is splitmix64's first output for `seed`.
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the slight modulo bias does not matter to a test).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi` (any `lo <= hi`, the whole `i64` range included).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (i128::from(hi) - i128::from(lo) + 1) as u128;
        let offset = u128::from(self.next_u64()) % span;
        i64::try_from(i128::from(lo) + offset as i128).expect("lo <= hi")
    }

    /// Uniform in `lo..=hi`.
    pub fn range32(&mut self, lo: i32, hi: i32) -> i32 {
        i32::try_from(self.range(i64::from(lo), i64::from(hi))).expect("within i32")
    }

    /// Uniform in `0..len` (len > 0).
    pub fn index(&mut self, len: usize) -> usize {
        usize::try_from(self.below(u64::try_from(len).expect("len fits u64"))).expect("< len")
    }

    /// True with the given probability in percent.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A fair coin (the lowest bit).
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// One of `items` (not empty), uniformly.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())]
    }
}
