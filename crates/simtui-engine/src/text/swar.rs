//! The portable block classifier: bit tricks on 8 bytes in a u64 ("SIMD within a
//! register"), for processors without AVX2. On bytes below 0x80, adding a constant below
//! 0x80 to each never carries into the next byte, and a byte's high bit answers a
//! question about it; non-ASCII bytes are set aside first. About 6 instructions a byte.

use super::fast::{HI, LO, Masks};

/// The bytes of `v` equal to `c`, as high bits: a byte of `v ^ c` plus 0x7f reaches
/// 0x80 exactly when it is not zero.
#[inline(always)]
fn bytes_equal(v: u64, c: u8) -> u64 {
    !(v ^ (LO * c as u64)).wrapping_add(LO * 0x7f) & HI
}

/// The bytes of `v` in `lo..=hi`, as high bits.
#[inline(always)]
fn bytes_between(v: u64, lo: u8, hi: u8) -> u64 {
    let at_least = v.wrapping_add(LO * (0x80 - lo) as u64);
    let above = v.wrapping_add(LO * (0x7f - hi) as u64);
    at_least & !above & HI
}

/// The 8 high bits of `h` packed into its low byte (byte j's bit to bit j).
#[inline(always)]
fn high_bits(h: u64) -> u64 {
    (h >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The masks of a block, 8 bytes at a time.
#[inline(always)]
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (j, bytes) in block.chunks_exact(8).enumerate() {
        let raw = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        let (v, ascii) = (raw & !HI, !raw & HI);
        let w = bytes_between(v | (LO * 0x20), b'a', b'z')
            | bytes_between(v, b'0', b'9')
            | bytes_equal(v, b'_');
        let p = bytes_equal(v, b'.')
            | bytes_equal(v, b'\'')
            | bytes_equal(v, b':')
            | bytes_equal(v, b',')
            | bytes_equal(v, b';');
        m.word |= high_bits(w & ascii) << (8 * j);
        m.joiner |= high_bits(p & ascii) << (8 * j);
        m.high |= high_bits(raw & HI) << (8 * j);
    }
    m
}
