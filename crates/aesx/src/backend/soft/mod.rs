//! The portable backend: constant-time bitsliced AES.
//!
//! Sixteen blocks go through the rounds together as eight 256-bit bit planes
//! (the layout is in [`bitslice`], the words in [`rows`]); the S-box is a
//! Boolean circuit ([`sbox`]) and the linear layers are XORs, lane
//! permutations and rotations ([`round`]). No table is indexed by key or data
//! and no branch depends on them: the only branches are on lengths, which are
//! public, and on the CPU's features. A partial batch is padded with zero
//! blocks and costs as much as a full one.
//!
//! The round code is generic over the register form of a plane and compiled
//! twice on x86-64: for SSE2 (the baseline) and, chosen at key setup when the
//! CPU has it, for AVX2. Elsewhere it runs on plain `u64`s.
//!
//! The soft GHASH ([`gcm`], constant-time carry-less multiplication) and
//! XTS ([`xts`]) kernels are further `impl` blocks on [`SoftAes`] that reach
//! the cipher through its [`BlockKernels`] methods.

mod bitslice;
mod gcm;
pub(crate) mod polyval;
mod round;
mod rows;
mod sbox;
mod xts;

use zeroize::Zeroize;

use self::bitslice::{pack, unpack};
use self::round::RoundKey;
use self::rows::Word;
use super::kernels::family::Family;
use super::kernels::inout::InOut;
use super::kernels::mac::MacKernels;
use super::kernels::polyval::PolyvalKernels;
use super::kernels::siv::SivKernels;
use super::kernels::{BlockKernels, CbcManyKernels};
use crate::error::Result;
use crate::key::{Block, RoundKeys, BLOCK_LEN, MAX_ROUNDS};

pub(crate) use self::bitslice::PAR;

// One tier, which runs everywhere.
impl Family for SoftAes {
    fn with_tier(tier: u8, rk: &RoundKeys) -> Option<Self> {
        Self::runs(tier).then(|| SoftAes::new(rk))
    }

    fn runs(tier: u8) -> bool {
        tier == 0
    }
}

// No multi-buffer kernel: one message after another.
impl CbcManyKernels for SoftAes {}

impl MacKernels for SoftAes {}

impl SivKernels for SoftAes {
    type Polyval = polyval::SoftPolyvalKey;

    fn message_key(&self, key: &[u8]) -> Result<Self> {
        Ok(SoftAes::new(&RoundKeys::expand(key)?))
    }

    fn polyval_key(&self, h: &Block, _blocks: usize) -> polyval::SoftPolyvalKey {
        polyval::SoftPolyvalKey::new(h)
    }
}

impl PolyvalKernels for polyval::SoftPolyvalKey {
    fn update_blocks(&self, acc: &mut Block, data: &[u8]) {
        self.update(acc, data)
    }
}

/// An expanded key for the soft backend: each FIPS 197 round key broadcast to
/// all sixteen lanes of the bitsliced layout (keys 1..Nr with 0x63 added to
/// every byte, see the `sbox` notes). Zeroized on drop.
#[derive(Clone)]
pub(crate) struct SoftAes {
    rk: [RoundKey; MAX_ROUNDS + 1],
    rounds: usize,
    simd: Simd,
}

/// Which build of the round code runs. The rounds are generic over the
/// register form of a 256-bit plane ([`Word`]): the baseline build uses two
/// SSE2 registers per plane on x86-64 (plain `u64`s elsewhere), and on
/// x86-64 CPUs with AVX2 a second build of the same functions uses one
/// 256-bit register. Both are constant-time; the choice depends on the CPU
/// only (or [`force_baseline_simd`], for tests and benchmarks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Simd {
    Baseline,
    /// With detection's AVX2 token: the proof that `batch_avx2` may run.
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    Avx2(super::kernels::cpu::Avx2),
}

/// The soft backend's choice of build, decided once per process: 0 not yet,
/// 1 baseline, 2 AVX2.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
static SIMD_CHOICE: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

/// Makes soft keys created from now on in this process use the baseline
/// build even where the CPU has AVX2, so that tests (the Valgrind
/// constant-time check) and benchmarks can cover both builds on one machine.
/// The library reads no environment variable; its callers decide.
pub(crate) fn force_baseline_simd() {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    SIMD_CHOICE.store(1, core::sync::atomic::Ordering::Relaxed);
}

impl Simd {
    /// The widest build this CPU runs, unless [`force_baseline_simd`] asked
    /// for the baseline one. Decided once per process.
    fn detect() -> Simd {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        {
            use core::sync::atomic::Ordering;
            let avx2 = super::kernels::cpu::features().avx2;
            let choice = match (SIMD_CHOICE.load(Ordering::Relaxed), avx2) {
                (1, _) | (_, None) => return Simd::Baseline,
                (_, Some(t)) => Simd::Avx2(t),
            };
            // A concurrent `force_baseline_simd` wins over detection.
            match SIMD_CHOICE.compare_exchange(0, 2, Ordering::Relaxed, Ordering::Relaxed) {
                Err(1) => Simd::Baseline,
                _ => choice,
            }
        }
        #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
        Simd::Baseline
    }
}

/// One batch through the cipher, in place: bitslice, rounds in registers of
/// type `W`, back.
#[inline(always)]
fn batch<W: Word>(cpu: W::Cpu, blocks: &mut [Block; PAR], rk: &[RoundKey], decrypt: bool) {
    let mut q = pack::<W>(cpu, blocks);
    if decrypt {
        round::decrypt::<W>(cpu, &mut q, rk);
    } else {
        round::encrypt::<W>(cpu, &mut q, rk);
    }
    unpack::<W>(cpu, &q, blocks);
    q.zeroize();
}

/// The baseline word: SSE2 on x86-64, plain integers elsewhere.
#[cfg(target_arch = "x86_64")]
type BaseWord = rows::sse2::Rows;
#[cfg(not(target_arch = "x86_64"))]
type BaseWord = rows::portable::Rows;

#[inline(never)]
fn batch_baseline(blocks: &mut [Block; PAR], rk: &[RoundKey], decrypt: bool) {
    batch::<BaseWord>((), blocks, rk, decrypt);
}

/// [`batch`] compiled for AVX2, on 256-bit words; `cpu` is the proof.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[target_feature(enable = "avx2")]
fn batch_avx2(
    cpu: super::kernels::cpu::Avx2,
    blocks: &mut [Block; PAR],
    rk: &[RoundKey],
    decrypt: bool,
) {
    batch::<rows::avx2::Rows>(cpu, blocks, rk, decrypt);
}

impl Drop for SoftAes {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl SoftAes {
    pub(crate) fn new(rk: &RoundKeys) -> Self {
        let rounds = rk.rounds();
        let mut keys: [RoundKey; MAX_ROUNDS + 1] = Default::default();
        let mut copies = [[0u8; BLOCK_LEN]; PAR];
        for (r, (dst, src)) in keys.iter_mut().zip(&rk.rk).take(rounds + 1).enumerate() {
            // Keys 1..Nr carry the S-box's affine constant, which the
            // circuits leave out (see the `sbox` module notes).
            let c = if r == 0 { 0 } else { 0x63 };
            // Packing sixteen copies of a round key is exactly its broadcast.
            copies = [src.map(|b| b ^ c); PAR];
            *dst = pack::<rows::portable::Rows>((), &copies);
        }
        copies.zeroize();
        SoftAes {
            rk: keys,
            rounds,
            simd: Simd::detect(),
        }
    }

    /// Encrypts (or decrypts) one batch of sixteen blocks in place.
    #[inline]
    fn run(&self, blocks: &mut [Block; PAR], decrypt: bool) {
        match self.simd {
            Simd::Baseline => batch_baseline(blocks, self.keys(), decrypt),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            // SAFETY: `t` is detection's AVX2 token, so the CPU has the
            // feature `batch_avx2` enables.
            Simd::Avx2(t) => unsafe { batch_avx2(t, blocks, self.keys(), decrypt) },
        }
    }

    /// The round keys in use, `rounds + 1` of them.
    #[inline]
    fn keys(&self) -> &[RoundKey] {
        &self.rk[..=self.rounds]
    }

    /// ECB in the direction `decrypt` says: batches of sixteen blocks.
    #[inline(always)]
    fn ecb(&self, mut io: InOut<'_>, decrypt: bool) {
        let n = io.blocks();
        let mut buf = [[0u8; BLOCK_LEN]; PAR];
        let mut first = 0;
        while first < n {
            let m = (n - first).min(PAR);
            load(&io, first, m, &mut buf);
            self.run(&mut buf, decrypt);
            for (j, b) in buf[..m].iter().enumerate() {
                io.write_block(first + j, b);
            }
            first += m;
        }
        buf.zeroize();
    }
}

/// Reads input blocks `first..first + m` into `buf[..m]` and zeroes the rest,
/// so a short batch carries no stale data.
#[inline(always)]
fn load(io: &InOut<'_>, first: usize, m: usize, buf: &mut [Block; PAR]) {
    for (j, b) in buf.iter_mut().enumerate() {
        *b = if j < m {
            io.read_block(first + j)
        } else {
            [0; BLOCK_LEN]
        };
    }
}

#[inline(always)]
fn xor_into(dst: &mut Block, src: &Block) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

impl BlockKernels for SoftAes {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        self.ecb(io, false);
    }

    fn decrypt_blocks(&self, io: InOut<'_>) {
        self.ecb(io, true);
    }

    /// Sixteen ciphertext blocks are decrypted together; each batch's
    /// ciphertext stays in `ct` for the chaining, so in-place calls need no
    /// further copy.
    fn cbc_decrypt(&self, iv: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut ct = [[0u8; BLOCK_LEN]; PAR];
        let mut pt = [[0u8; BLOCK_LEN]; PAR];
        let mut first = 0;
        while first < n {
            let m = (n - first).min(PAR);
            load(&io, first, m, &mut ct);
            pt = ct;
            self.run(&mut pt, true);
            for j in 0..m {
                xor_into(&mut pt[j], if j == 0 { &*iv } else { &ct[j - 1] });
                io.write_block(first + j, &pt[j]);
            }
            *iv = ct[m - 1];
            first += m;
        }
        pt.zeroize();
    }

    /// Sixteen counter blocks per batch, encrypted together and XORed
    /// straight into the output.
    fn ctr_apply(&self, ctr: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut c = u128::from_be_bytes(*ctr);
        let mut ks = [[0u8; BLOCK_LEN]; PAR];
        let mut first = 0;
        while first < n {
            let m = (n - first).min(PAR);
            for (j, b) in ks.iter_mut().enumerate() {
                *b = c.wrapping_add(j as u128).to_be_bytes();
            }
            c = c.wrapping_add(m as u128);
            self.run(&mut ks, false);
            for (j, k) in ks[..m].iter().enumerate() {
                let mut b = io.read_block(first + j);
                xor_into(&mut b, k);
                io.write_block(first + j, &b);
            }
            first += m;
        }
        *ctr = c.to_be_bytes();
        ks.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generic kernels of [`BlockKernels`] on top of the soft ECB: the
    /// reference for the soft backend's own CBC and CTR.
    struct Generic<'a>(&'a SoftAes);

    impl BlockKernels for Generic<'_> {
        fn encrypt_blocks(&self, io: InOut<'_>) {
            self.0.encrypt_blocks(io);
        }
        fn decrypt_blocks(&self, io: InOut<'_>) {
            self.0.decrypt_blocks(io);
        }
    }

    /// The key `00 01 02 ...` of `len` bytes, once per compilation of the
    /// rounds this CPU can run (baseline first).
    fn keys(len: usize) -> Vec<SoftAes> {
        let k: Vec<u8> = (0..len as u8).collect();
        let best = SoftAes::new(&RoundKeys::expand(&k).unwrap());
        let mut base = best.clone();
        base.simd = Simd::Baseline;
        if best.simd == Simd::Baseline {
            vec![base]
        } else {
            vec![base, best]
        }
    }

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn fips197_appendix_c_every_lane() {
        let pt = h("00112233445566778899aabbccddeeff");
        for (len, ct) in [
            (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
            (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
            (32, "8ea2b7ca516745bfeafc49904b496089"),
        ] {
            let ct = h(ct);
            for aes in keys(len) {
                // 1, a partial batch, a full one, and one spilling over.
                for n in [1, 5, 16, 17, 35] {
                    let mut buf = pt.repeat(n);
                    aes.encrypt_blocks(InOut::in_place(&mut buf));
                    let what = format!("{len}-byte key, {n} blocks, {:?}", aes.simd);
                    assert_eq!(buf, ct.repeat(n), "encrypt, {what}");
                    aes.decrypt_blocks(InOut::in_place(&mut buf));
                    assert_eq!(buf, pt.repeat(n), "decrypt, {what}");
                }
            }
        }
    }

    /// The plain-integer words (used off x86-64) through the whole cipher,
    /// against the words in use here.
    #[test]
    fn portable_words_agree() {
        for len in [16, 24, 32] {
            for aes in keys(len) {
                let mut a: [Block; PAR] =
                    core::array::from_fn(|k| core::array::from_fn(|j| (k * 16 + j) as u8));
                let mut b = a;
                for decrypt in [false, true] {
                    batch::<rows::portable::Rows>((), &mut a, aes.keys(), decrypt);
                    aes.run(&mut b, decrypt);
                    assert_eq!(a, b, "{len}-byte key, decrypt {decrypt}");
                }
            }
        }
    }

    #[test]
    fn lanes_are_independent() {
        for aes in keys(16) {
            let mut data: Vec<u8> = (0..16 * 23).map(|i| (i * 7 + 3) as u8).collect();
            let mut one_by_one = data.clone();
            for b in one_by_one.chunks_exact_mut(16) {
                aes.encrypt_blocks(InOut::in_place(b));
            }
            aes.encrypt_blocks(InOut::in_place(&mut data));
            assert_eq!(data, one_by_one);
        }
    }

    #[test]
    fn cbc_and_ctr_match_generic_kernels() {
        for aes in [16, 24, 32].into_iter().flat_map(keys) {
            let len = aes.rounds;
            for n in [0, 1, 15, 16, 17, 40] {
                let src: Vec<u8> = (0..16 * n).map(|i| (i * 31 + len) as u8).collect();
                let iv: Block = core::array::from_fn(|i| 0xf0 + i as u8);
                // A counter about to wrap, to cross 2^128 inside a batch.
                let mut ctr0 = [0xff; 16];
                ctr0[15] = 0xf8;

                // The soft kernel in place, the generic one out of place:
                // same output, same state left.
                let check =
                    |state: Block, run: &dyn Fn(&dyn BlockKernels, &mut Block, InOut<'_>)| {
                        let (mut s_a, mut s_b) = (state, state);
                        let mut a = src.clone();
                        let mut b = vec![0u8; src.len()];
                        run(&aes, &mut s_a, InOut::in_place(&mut a));
                        run(&Generic(&aes), &mut s_b, InOut::new(&src, &mut b).unwrap());
                        assert_eq!(a, b);
                        assert_eq!(s_a, s_b);
                    };
                check(iv, &|k, iv, io| k.cbc_decrypt(iv, io));
                check(ctr0, &|k, ctr, io| k.ctr_apply(ctr, io));
            }
        }
    }
}
