//! Writes a structured input as the bytes `arbitrary` (1.x) decodes into it, so that seeds
//! can be built as values: integers little-endian, `bool` as one byte, `Option` as a flag
//! byte and the value, `Vec` as a "one more" byte before each element and a 0 after the last,
//! an enum as the `u32` that selects its variant. (Strings and byte slices, whose lengths
//! `arbitrary` takes from the end of the input, are not supported.) The seed writer checks
//! every seed by decoding it again.

/// A value that can be written as `arbitrary`'s input bytes.
pub trait Encode {
    /// Appends the bytes `arbitrary` decodes into `self`.
    fn encode(&self, out: &mut Vec<u8>);
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, i8, i16, i32, i64);

impl Encode for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.is_some().encode(out);
        if let Some(x) = self {
            x.encode(out);
        }
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        for x in self {
            true.encode(out);
            x.encode(out);
        }
        false.encode(out);
    }
}

impl<A: Encode, B: Encode> Encode for (A, B) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
}

impl<A: Encode, B: Encode, C: Encode> Encode for (A, B, C) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
        self.2.encode(out);
    }
}

/// Writes the selector of variant `index` of an enum of `count` variants: the derive picks
/// `(u64::from(x) * count) >> 32`, so the smallest `x` that gives `index`.
pub fn variant(out: &mut Vec<u8>, index: u32, count: u32) {
    let x = ((u64::from(index) << 32) + u64::from(count) - 1) / u64::from(count);
    u32::try_from(x).expect("index < count").encode(out);
}

/// Implements [`Encode`] for a struct by writing its fields in declaration order (which must be
/// the order listed: the seed writer's decoding check catches a mismatch).
#[macro_export]
macro_rules! encode_fields {
    ($t:ty { $($f:ident),* $(,)? }) => {
        impl $crate::seed::Encode for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                $( $crate::seed::Encode::encode(&self.$f, out); )*
            }
        }
    };
}

/// The bytes of `input`.
pub fn bytes<T: Encode>(input: &T) -> Vec<u8> {
    let mut out = Vec::new();
    input.encode(&mut out);
    out
}
