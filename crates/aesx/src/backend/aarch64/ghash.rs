//! GHASH with PMULL/PMULL2 (64x64 -> 128-bit carry-less multiplication).
//!
//! Representation. A GHASH block read as a big-endian 128-bit integer is the
//! field element with its bits reversed (GCM puts the coefficient of x^0 in
//! the top bit of byte 0). In that reversed variable y the modulus
//! x^128 + x^7 + x^2 + x + 1 becomes g'(y) = y^128 + y^127 + y^126 + y^121 + 1,
//! and for reversed operands A, B the plain carry-less product satisfies
//! clmul(A, B) = y^127 * rev(a*b) (mod g'). Keeping each key power premultiplied
//! by y (K_i = rev(H^i) * y mod g', the usual "H << 1" trick) turns that factor
//! into y^128, which a Montgomery-style reduction divides out with two 64x64
//! multiplications by c = y^63 + y^62 + y^57 (0xc2 << 56) and no shifts.
//! Reduction is linear, so eight products are summed and reduced once
//! (aggregated reduction).
//!
//! Lanes. `LD1` + `REV64` of a block gives the reversed value with its high
//! 64 bits in lane 0 and low 64 bits in lane 1 ("swapped" layout) in two
//! instructions and no lane exchange. Keys are stored both swapped and in the
//! natural layout, so that PMULL (the two lanes 0) and PMULL2 (the two
//! lanes 1) produce all four 64x64 partial products of a schoolbook multiply
//! without moving data lanes: per block four PMULLs and, with EOR3, two
//! accumulating XORs.
//!
//! Reduction of P = hi*y^128 + mid*y^64 + lo, words P3 P2 P1 P0 (P0 lowest):
//! adding P0*g'*1 clears P0 and adds clmul(P0, c) at y^64 and P0 at y^128;
//! adding the new P1 times g'*y^64 clears P1 and adds clmul(P1, c) at y^128
//! and P1 at y^192. The result is P3:P2. The middle product folds into the
//! first step for free: its low word lands on P1, its high word on P2, exactly
//! where the first step's cross terms go.
//!
//! Everything here is data-independent in time: PMULL, EOR and EXT have
//! fixed latency, and there are no branches or table lookups on secrets.

use core::arch::aarch64::*;

use super::rounds::Flavour;
use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::key::Block;

/// Key powers used per aggregated reduction.
pub(crate) const POWERS: usize = 8;

/// The hash key H = E_K(0^128) as powers K_1..K_8 (see the module notes).
#[derive(Clone)]
pub(crate) struct ArmHKey {
    /// `k[i]` = K_(i+1) in swapped layout (lane 0 = high 64 bits).
    pub(crate) k: [uint64x2_t; POWERS],
    /// `kx[i]` = K_(i+1) in natural layout (lane 0 = low 64 bits).
    pub(crate) kx: [uint64x2_t; POWERS],
}

impl Drop for ArmHKey {
    fn drop(&mut self) {
        for v in self.k.iter_mut().chain(self.kx.iter_mut()) {
            // SAFETY: `v` is a valid, aligned, exclusive reference; a volatile
            // write keeps the compiler from eliding the wipe.
            unsafe { core::ptr::write_volatile(v, vdupq_n_u64(0)) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

// PMULL through inline assembly rather than `vmull_p64`: the intrinsic
// takes its operands as scalar `u64` lanes, and LLVM then loads key powers
// that live in memory straight into general registers and rebuilds a vector
// (DUP/FMOV) before every multiply, three extra instructions per product.
// The asm operands are vector registers, so the keys stay vectors. `pure` and
// `nomem` leave LLVM free to schedule, hoist and CSE the multiplies.

/// PMULL: lane 0 of `a` times lane 0 of `b`.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn pmull_lo(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let r: uint64x2_t;
    // SAFETY: PMULL only reads its two vector operands and writes the result
    // register; FEAT_PMULL is enabled for this function.
    unsafe {
        core::arch::asm!(
            "pmull {r:v}.1q, {a:v}.1d, {b:v}.1d",
            r = lateout(vreg) r,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    r
}

/// PMULL2: lane 1 of `a` times lane 1 of `b`.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn pmull_hi(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let r: uint64x2_t;
    // SAFETY: PMULL2 only reads its two vector operands and writes the
    // result register; FEAT_PMULL is enabled for this function.
    unsafe {
        core::arch::asm!(
            "pmull2 {r:v}.1q, {a:v}.2d, {b:v}.2d",
            r = lateout(vreg) r,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    r
}

/// Exchanges the two 64-bit lanes.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn swap_lanes(a: uint64x2_t) -> uint64x2_t {
    vextq_u64::<1>(a, a)
}

/// Loads block `i` of `p` into swapped layout.
///
/// # Safety
/// `p + 16 * i .. p + 16 * i + 16` must be readable.
#[inline]
#[target_feature(enable = "aes")]
pub(super) unsafe fn load_swapped(p: *const u8, i: usize) -> uint64x2_t {
    // SAFETY: the caller guarantees the 16 bytes are readable.
    vreinterpretq_u64_u8(vrev64q_u8(unsafe { vld1q_u8(p.add(16 * i)) }))
}

/// A block (bytes in GCM order) from a swapped-layout value, and back.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn swapped_from_bytes(b: uint8x16_t) -> uint64x2_t {
    vreinterpretq_u64_u8(vrev64q_u8(b))
}

#[inline]
#[target_feature(enable = "aes")]
pub(super) fn bytes_from_swapped(v: uint64x2_t) -> uint8x16_t {
    vrev64q_u8(vreinterpretq_u8_u64(v))
}

/// The running hash in `acc` (bytes in GCM order) in swapped layout, and
/// back.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn acc_load(acc: &Block) -> uint64x2_t {
    // SAFETY: `acc` is 16 readable bytes.
    swapped_from_bytes(unsafe { vld1q_u8(acc.as_ptr()) })
}

#[inline]
#[target_feature(enable = "aes")]
pub(super) fn acc_store(y: uint64x2_t, acc: &mut Block) {
    // SAFETY: `acc` is 16 writable bytes.
    unsafe { vst1q_u8(acc.as_mut_ptr(), bytes_from_swapped(y)) };
}

/// Sums of partial products awaiting one reduction.
#[derive(Clone, Copy)]
pub(super) struct Partial {
    pub(super) lo: uint64x2_t,
    pub(super) hi: uint64x2_t,
    pub(super) mid: uint64x2_t,
}

/// The four partial products of `a` (swapped) times key power `k`
/// (swapped) / `kx` (natural): `hi`, `lo`, and the two halves of `mid`.
#[inline]
#[target_feature(enable = "aes")]
fn products(a: uint64x2_t, k: uint64x2_t, kx: uint64x2_t) -> [uint64x2_t; 4] {
    [
        pmull_lo(a, k),
        pmull_hi(a, k),
        pmull_lo(a, kx),
        pmull_hi(a, kx),
    ]
}

/// `a ^ b` on 64-bit lanes.
#[inline(always)]
fn xor64(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    // SAFETY: EOR needs only Advanced SIMD, which every AArch64 CPU has.
    unsafe { veorq_u64(a, b) }
}

/// `a` times key power `k` / `kx`, unreduced.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn mul(a: uint64x2_t, k: uint64x2_t, kx: uint64x2_t) -> Partial {
    let [hi, lo, m0, m1] = products(a, k, kx);
    Partial {
        hi,
        lo,
        mid: veorq_u64(m0, m1),
    }
}

/// `p += a * k`, the middle sum in one [`Flavour::xor3_64`].
#[inline(always)]
fn mul_acc<X: Flavour>(x: X, p: &mut Partial, a: uint64x2_t, k: uint64x2_t, kx: uint64x2_t) {
    // SAFETY: the token `x` proves FEAT_PMULL.
    let [hi, lo, m0, m1] = unsafe { products(a, k, kx) };
    p.hi = xor64(p.hi, hi);
    p.lo = xor64(p.lo, lo);
    p.mid = x.xor3_64(p.mid, m0, m1);
}

/// Reduces a sum of products by y^128 modulo g'; the result is in swapped
/// layout, ready to XOR into the next data block.
#[inline(always)]
pub(super) fn reduce<X: Flavour>(x: X, p: Partial) -> uint64x2_t {
    // SAFETY: MOVI needs only Advanced SIMD, which every AArch64 CPU has.
    let c = unsafe { vdupq_n_u64(0xc200_0000_0000_0000) };
    // SAFETY: the token `x` proves FEAT_AES and FEAT_PMULL, all that
    // `pmull_lo` and `swap_lanes` need.
    let (t, lo) = unsafe { (pmull_lo(p.lo, c), swap_lanes(p.lo)) };
    let m = x.xor3_64(t, lo, p.mid);
    // SAFETY: the token `x` proves FEAT_AES and FEAT_PMULL.
    let (u, ms) = unsafe { (pmull_lo(m, c), swap_lanes(m)) };
    // SAFETY: the token `x` proves FEAT_AES.
    unsafe { swap_lanes(x.xor3_64(p.hi, u, ms)) }
}

/// Hashes the `m` blocks at `p` into the running hash `y` with one
/// reduction: block `j` (swapped on load, the first XORed with `y`) times
/// key power H^(m-j). The 8-block loops pass the constant `POWERS`, so that
/// once this is inlined every key index is a constant and the key powers
/// stay in registers across iterations.
///
/// # Safety
/// The `m` blocks at `p` must be readable; 1 <= `m` <= `POWERS`.
#[inline(always)]
pub(super) unsafe fn ghash_blocks<X: Flavour>(
    x: X,
    hk: &ArmHKey,
    y: uint64x2_t,
    p: *const u8,
    m: usize,
) -> uint64x2_t {
    // SAFETY: block 0 at `p` is readable (the caller's contract); the token
    // `x` proves FEAT_AES for the loads' REV64 and for `mul`.
    let mut part = unsafe { mul(xor64(y, load_swapped(p, 0)), hk.k[m - 1], hk.kx[m - 1]) };
    for j in 1..m {
        // SAFETY: block j < m at `p` is readable (the caller's contract).
        let b = unsafe { load_swapped(p, j) };
        mul_acc(x, &mut part, b, hk.k[m - 1 - j], hk.kx[m - 1 - j]);
    }
    reduce(x, part)
}

/// GHASH over the whole blocks of `data` into `acc`: whole chunks of 8 with
/// constant key indices, then one shorter chunk, whose block j of m is
/// multiplied by H^(m - j).
#[inline(always)]
fn update_body<X: Flavour>(x: X, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
    let n = data.len() / 16;
    let p = data.as_ptr();
    // SAFETY: the token `x` proves FEAT_AES.
    let mut y = unsafe { acc_load(acc) };
    let mut i = 0;
    while i + POWERS <= n {
        // SAFETY: blocks i..i+8 lie inside `data`.
        y = unsafe { ghash_blocks(x, hk, y, p.add(16 * i), POWERS) };
        i += POWERS;
    }
    if i < n {
        // SAFETY: blocks i..n lie inside `data`, 1 <= n - i < 8.
        y = unsafe { ghash_blocks(x, hk, y, p.add(16 * i), n - i) };
    }
    // SAFETY: the token `x` proves FEAT_AES.
    unsafe { acc_store(y, acc) };
}

flavours!(
    /// GHASH over the whole blocks of `data` into `acc`.
    update, update_eor3 = update_body<>(hk: &ArmHKey, acc: &mut Block, data: &[u8])
);

/// `K = rev(H) * y mod g'`: a one-bit left shift of the reversed value, with
/// g' folded back in when a bit leaves the top (by mask, not branch).
fn premultiply_by_y(h: u128) -> u128 {
    let carry = h >> 127;
    (h << 1) ^ (0u128.wrapping_sub(carry) & 0xc200_0000_0000_0000_0000_0000_0000_0001)
}

#[inline]
#[target_feature(enable = "aes")]
fn swapped_from_u128(v: u128) -> uint64x2_t {
    vcombine_u64(vcreate_u64((v >> 64) as u64), vcreate_u64(v as u64))
}

/// Computes H = E_K(0) and the key powers K_1..K_8.
///
/// # Safety
/// The CPU must have FEAT_AES and FEAT_PMULL (guaranteed by holding an
/// `ArmAes`).
#[target_feature(enable = "aes")]
pub(super) unsafe fn hkey(aes: &ArmAes) -> ArmHKey {
    let mut h = [0u8; 16];
    crate::backend::kernels::BlockKernels::encrypt_blocks(
        aes,
        crate::backend::kernels::inout::InOut::in_place(&mut h),
    );
    let k1 = swapped_from_u128(premultiply_by_y(u128::from_be_bytes(h)));
    zeroize::Zeroize::zeroize(&mut h);
    let crypto = aes.crypto();
    let mut k = [vdupq_n_u64(0); POWERS];
    let mut kx = [vdupq_n_u64(0); POWERS];
    k[0] = k1;
    kx[0] = swap_lanes(k1);
    for i in 1..POWERS {
        // montmul(K_i, K_1) = K_(i+1): the key powers stay premultiplied.
        k[i] = reduce(crypto, mul(k[i - 1], k[0], kx[0]));
        kx[i] = swap_lanes(k[i]);
    }
    ArmHKey { k, kx }
}
