//! The AES S-box and its inverse as Boolean circuits on bit planes.
//!
//! Each argument holds eight planes `x[0]` (least significant bit of every
//! byte) to `x[7]` (most significant bit); one bit position across the eight
//! words is one byte, so a single call on 256-bit words substitutes 256 bytes
//! at once with only XOR and AND: no lookups, no branches, whatever the
//! data. The word type is generic so that tests can use plain `u64`.
//!
//! The gate lists are the circuits of Boyar and Peralta, "A depth-16 circuit
//! for the AES S-box" (SEC 2012, eprint 2011/332): a linear top layer, a
//! nonlinear middle shared by both directions (the GF(2^8) inversion in a
//! tower field) and a linear bottom layer. The forward circuit has 128 gates
//! (34 of them AND), the inverse 127, at depth 16. Variable names follow the paper (U0 is the most
//! significant input bit, S0 the most significant output bit) so that the
//! gates can be checked against its figures; the exhaustive tests below check
//! them against the computed S-box in `key.rs`.
//!
//! One change to the published gates: their NOTs (XNORs) are dropped. In the
//! forward circuit they add the affine constant 0x63 to the output; in the
//! inverse one they add it to the input. So [`sub_bytes`] computes
//! `S(x) ^ 0x63` and [`inv_sub_bytes`] computes `S⁻¹(y ^ 0x63)`. Every S-box
//! output and every inverse S-box input sits between a round key and the
//! next S-box behind only ShiftRows and (Inv)MixColumns, which leave a
//! constant 0x63 in every byte unchanged (the MixColumns coefficients sum to
//! 1), so adding 0x63 to round keys 1..Nr restores both directions for free
//! (see `SoftAes::new`): four NOTs fewer per encryption round, ten per
//! decryption round.

use core::ops::{BitAnd, BitXor, Not};

/// A word of bit lanes: what the circuits compute with.
pub(super) trait Lanes:
    Copy + BitXor<Output = Self> + BitAnd<Output = Self> + Not<Output = Self>
{
}

impl<T> Lanes for T where T: Copy + BitXor<Output = T> + BitAnd<Output = T> + Not<Output = T> {}

/// What the top layer hands to the shared middle (Fig. 7 inputs).
struct Top<W> {
    t1: W,
    t2: W,
    t3: W,
    t4: W,
    t6: W,
    t8: W,
    t9: W,
    t10: W,
    t13: W,
    t14: W,
    t15: W,
    t16: W,
    t17: W,
    t19: W,
    t20: W,
    t22: W,
    t23: W,
    t24: W,
    t25: W,
    t26: W,
    t27: W,
    d: W,
}

/// The middle layer's outputs M46..M63, the inputs of either bottom layer.
struct Mid<W> {
    m46: W,
    m47: W,
    m48: W,
    m49: W,
    m50: W,
    m51: W,
    m52: W,
    m53: W,
    m54: W,
    m55: W,
    m56: W,
    m57: W,
    m58: W,
    m59: W,
    m60: W,
    m61: W,
    m62: W,
    m63: W,
}

/// Forward S-box on eight planes, in place.
#[inline(always)]
pub(super) fn sub_bytes<W: Lanes>(x: &mut [W; 8]) {
    let (u0, u1, u2, u3) = (x[7], x[6], x[5], x[4]);
    let (u4, u5, u6, u7) = (x[3], x[2], x[1], x[0]);

    // Top linear layer, forward direction (Fig. 5).
    let t1 = u0 ^ u3;
    let t2 = u0 ^ u5;
    let t3 = u0 ^ u6;
    let t4 = u3 ^ u5;
    let t5 = u4 ^ u6;
    let t6 = t1 ^ t5;
    let t7 = u1 ^ u2;
    let t8 = u7 ^ t6;
    let t9 = u7 ^ t7;
    let t10 = t6 ^ t7;
    let t11 = u1 ^ u5;
    let t12 = u2 ^ u5;
    let t13 = t3 ^ t4;
    let t14 = t6 ^ t11;
    let t15 = t5 ^ t11;
    let t16 = t5 ^ t12;
    let t17 = t9 ^ t16;
    let t18 = u3 ^ u7;
    let t19 = t7 ^ t18;
    let t20 = t1 ^ t19;
    let t21 = u6 ^ u7;
    let t22 = t7 ^ t21;
    let t23 = t2 ^ t22;
    let t24 = t2 ^ t10;
    let t25 = t20 ^ t17;
    let t26 = t3 ^ t16;
    let t27 = t1 ^ t12;

    let m = middle(Top {
        t1,
        t2,
        t3,
        t4,
        t6,
        t8,
        t9,
        t10,
        t13,
        t14,
        t15,
        t16,
        t17,
        t19,
        t20,
        t22,
        t23,
        t24,
        t25,
        t26,
        t27,
        d: u7,
    });

    // Bottom linear layer, forward direction (Fig. 8, XNORs as XORs).
    let l0 = m.m61 ^ m.m62;
    let l1 = m.m50 ^ m.m56;
    let l2 = m.m46 ^ m.m48;
    let l3 = m.m47 ^ m.m55;
    let l4 = m.m54 ^ m.m58;
    let l5 = m.m49 ^ m.m61;
    let l6 = m.m62 ^ l5;
    let l7 = m.m46 ^ l3;
    let l8 = m.m51 ^ m.m59;
    let l9 = m.m52 ^ m.m53;
    let l10 = m.m53 ^ l4;
    let l11 = m.m60 ^ l2;
    let l12 = m.m48 ^ m.m51;
    let l13 = m.m50 ^ l0;
    let l14 = m.m52 ^ m.m61;
    let l15 = m.m55 ^ l1;
    let l16 = m.m56 ^ l0;
    let l17 = m.m57 ^ l1;
    let l18 = m.m58 ^ l8;
    let l19 = m.m63 ^ l4;
    let l20 = l0 ^ l1;
    let l21 = l1 ^ l7;
    let l22 = l3 ^ l12;
    let l23 = l18 ^ l2;
    let l24 = l15 ^ l9;
    let l25 = l6 ^ l10;
    let l26 = l7 ^ l9;
    let l27 = l8 ^ l10;
    let l28 = l11 ^ l14;
    let l29 = l11 ^ l17;

    x[7] = l6 ^ l24;
    x[6] = l16 ^ l26;
    x[5] = l19 ^ l28;
    x[4] = l6 ^ l21;
    x[3] = l20 ^ l22;
    x[2] = l25 ^ l29;
    x[1] = l13 ^ l27;
    x[0] = l6 ^ l23;
}

/// Inverse S-box on eight planes, in place.
#[inline(always)]
pub(super) fn inv_sub_bytes<W: Lanes>(x: &mut [W; 8]) {
    let (u0, u1, u2, u3) = (x[7], x[6], x[5], x[4]);
    let (u4, u5, u6, u7) = (x[3], x[2], x[1], x[0]);

    // Top linear layer, reverse direction (Fig. 6, XNORs as XORs): it undoes
    // the affine map and feeds the same middle layer.
    let t23 = u0 ^ u3;
    let t22 = u1 ^ u3;
    let t2 = u0 ^ u1;
    let t1 = u3 ^ u4;
    let t24 = u4 ^ u7;
    let r5 = u6 ^ u7;
    let t8 = u1 ^ t23;
    let t19 = t22 ^ r5;
    let t9 = u7 ^ t1;
    let t10 = t2 ^ t24;
    let t13 = t2 ^ r5;
    let t3 = t1 ^ r5;
    let t25 = u2 ^ t1;
    let r13 = u1 ^ u6;
    let t17 = u2 ^ t19;
    let t20 = t24 ^ r13;
    let t4 = u4 ^ t8;
    let r17 = u2 ^ u5;
    let r18 = u5 ^ u6;
    let r19 = u2 ^ u4;
    let y5 = u0 ^ r17;
    let t6 = t22 ^ r17;
    let t16 = r13 ^ r19;
    let t27 = t1 ^ r18;
    let t15 = t10 ^ t27;
    let t14 = t10 ^ r18;
    let t26 = t3 ^ t16;

    let m = middle(Top {
        t1,
        t2,
        t3,
        t4,
        t6,
        t8,
        t9,
        t10,
        t13,
        t14,
        t15,
        t16,
        t17,
        t19,
        t20,
        t22,
        t23,
        t24,
        t25,
        t26,
        t27,
        d: y5,
    });

    // Bottom linear layer, reverse direction (Fig. 9).
    let p0 = m.m52 ^ m.m61;
    let p1 = m.m58 ^ m.m59;
    let p2 = m.m54 ^ m.m62;
    let p3 = m.m47 ^ m.m50;
    let p4 = m.m48 ^ m.m56;
    let p5 = m.m46 ^ m.m51;
    let p6 = m.m49 ^ m.m60;
    let p7 = p0 ^ p1;
    let p8 = m.m50 ^ m.m53;
    let p9 = m.m55 ^ m.m63;
    let p10 = m.m57 ^ p4;
    let p11 = p0 ^ p3;
    let p12 = m.m46 ^ m.m48;
    let p13 = m.m49 ^ m.m51;
    let p14 = m.m49 ^ m.m62;
    let p15 = m.m54 ^ m.m59;
    let p16 = m.m57 ^ m.m61;
    let p17 = m.m58 ^ p2;
    let p18 = m.m63 ^ p5;
    let p19 = p2 ^ p3;
    let p20 = p4 ^ p6;
    let p22 = p2 ^ p7;
    let p23 = p7 ^ p8;
    let p24 = p5 ^ p7;
    let p25 = p6 ^ p10;
    let p26 = p9 ^ p11;
    let p27 = p10 ^ p18;
    let p28 = p11 ^ p25;
    let p29 = p15 ^ p20;

    x[7] = p13 ^ p22;
    x[6] = p26 ^ p29;
    x[5] = p17 ^ p28;
    x[4] = p12 ^ p22;
    x[3] = p23 ^ p27;
    x[2] = p19 ^ p24;
    x[1] = p14 ^ p23;
    x[0] = p9 ^ p16;
}

/// The shared nonlinear middle layer (Fig. 7): inversion in GF(2^8).
#[inline(always)]
fn middle<W: Lanes>(t: Top<W>) -> Mid<W> {
    let m1 = t.t13 & t.t6;
    let m2 = t.t23 & t.t8;
    let m3 = t.t14 ^ m1;
    let m4 = t.t19 & t.d;
    let m5 = m4 ^ m1;
    let m6 = t.t3 & t.t16;
    let m7 = t.t22 & t.t9;
    let m8 = t.t26 ^ m6;
    let m9 = t.t20 & t.t17;
    let m10 = m9 ^ m6;
    let m11 = t.t1 & t.t15;
    let m12 = t.t4 & t.t27;
    let m13 = m12 ^ m11;
    let m14 = t.t2 & t.t10;
    let m15 = m14 ^ m11;
    let m16 = m3 ^ m2;
    let m17 = m5 ^ t.t24;
    let m18 = m8 ^ m7;
    let m19 = m10 ^ m15;
    let m20 = m16 ^ m13;
    let m21 = m17 ^ m15;
    let m22 = m18 ^ m13;
    let m23 = m19 ^ t.t25;
    let m24 = m22 ^ m23;
    let m25 = m22 & m20;
    let m26 = m21 ^ m25;
    let m27 = m20 ^ m21;
    let m28 = m23 ^ m25;
    let m29 = m28 & m27;
    let m30 = m26 & m24;
    let m31 = m20 & m23;
    let m32 = m27 & m31;
    let m33 = m27 ^ m25;
    let m34 = m21 & m22;
    let m35 = m24 & m34;
    let m36 = m24 ^ m25;
    let m37 = m21 ^ m29;
    let m38 = m32 ^ m33;
    let m39 = m23 ^ m30;
    let m40 = m35 ^ m36;
    let m41 = m38 ^ m40;
    let m42 = m37 ^ m39;
    let m43 = m37 ^ m38;
    let m44 = m39 ^ m40;
    let m45 = m42 ^ m41;
    Mid {
        m46: m44 & t.t6,
        m47: m40 & t.t8,
        m48: m39 & t.d,
        m49: m43 & t.t16,
        m50: m38 & t.t9,
        m51: m37 & t.t17,
        m52: m42 & t.t15,
        m53: m45 & t.t27,
        m54: m41 & t.t10,
        m55: m44 & t.t13,
        m56: m40 & t.t23,
        m57: m39 & t.t19,
        m58: m43 & t.t3,
        m59: m38 & t.t22,
        m60: m37 & t.t20,
        m61: m42 & t.t1,
        m62: m45 & t.t4,
        m63: m41 & t.t2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{inv_sbox, sbox};

    /// Runs `f` on all 256 byte values (four words of 64 lanes each) and
    /// checks every lane against `want`.
    fn exhaustive(f: fn(&mut [u64; 8]), want: fn(u8) -> u8) {
        for base in (0..256usize).step_by(64) {
            let mut planes = [0u64; 8];
            for lane in 0..64 {
                let v = (base + lane) as u64;
                for (i, p) in planes.iter_mut().enumerate() {
                    *p |= ((v >> i) & 1) << lane;
                }
            }
            f(&mut planes);
            for lane in 0..64 {
                let got = (0..8).fold(0u8, |acc, i| acc | ((((planes[i] >> lane) & 1) as u8) << i));
                let x = (base + lane) as u8;
                assert_eq!(got, want(x), "input {x:#04x}");
            }
        }
    }

    #[test]
    fn forward_matches_computed_sbox() {
        // The circuit leaves out the affine constant.
        exhaustive(sub_bytes::<u64>, |x| sbox(x) ^ 0x63);
    }

    #[test]
    fn inverse_matches_computed_inv_sbox() {
        // The circuit expects the affine constant already added to its input.
        exhaustive(inv_sub_bytes::<u64>, |x| inv_sbox(x ^ 0x63));
    }
}
