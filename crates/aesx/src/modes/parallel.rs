//! One large call on several threads: GCM, GCM-SIV, CTR and XTS split a message into
//! contiguous segments, one per thread, and give the same bytes as one
//! thread at every split.
//!
//! Opt in per key with `with_threads(n)` on [`Gcm`](crate::Gcm),
//! [`GcmSiv`](crate::GcmSiv), [`Ctr`](crate::Ctr) and [`Xts`](crate::Xts)
//! (standard library only). Every call of that key
//! then splits a message of at least [`MIN_SEGMENT`] bytes per extra
//! thread; a shorter one runs on the calling thread alone, where handing
//! work to another thread would cost more than it saves.
//!
//! The calling thread takes the first segment; the others go to worker
//! threads started on first use and kept (starting one per call costs as
//! much as encrypting a few hundred KiB): after a task a worker spins for
//! up to 200 µs, then parks. A segment no worker has started when the
//! calling thread is free is run there; the call returns when all are done.
//!
//! ```
//! use aesx::{Ctr, Gcm};
//!
//! let msg = vec![7u8; 4 << 20];
//! let gcm = Gcm::new(&[1u8; 32]).unwrap().with_threads(4);
//! let sealed = gcm.seal(&[2u8; 12], b"header", &msg).unwrap();
//! assert_eq!(gcm.open(&[2u8; 12], b"header", &sealed).unwrap(), msg);
//!
//! let mut data = msg.clone();
//! Ctr::new(&[1u8; 16], &[0u8; 16]).unwrap().with_threads(2).apply_keystream(&mut data);
//! ```
//!
//! - **GCM**: segment `i` starts `b_i` blocks in, its counter inc32 applied
//!   `1 + b_i` times to J0. Each thread runs the fused CTR32+GHASH kernel
//!   from a zero GHASH state (the first from the AAD's) and returns its sum
//!   S_i; in order, X = X·H^m_i ^ S_i (GHASH is linear), with H^m by
//!   square-and-multiply on the constant-time portable product. The partial
//!   last block, the length block and E_K(J0) follow on the calling thread;
//!   opening checks the tag over the whole ciphertext and wipes the output
//!   on a mismatch, as the one-thread open does.
//! - **CTR**: segment `i` starts at the 128-bit counter block plus `b_i`
//!   (wrapping modulo 2^128, as [`Ctr`](crate::Ctr) does).
//! - **XTS**: the multi-sector calls split at sector boundaries; each
//!   segment starts at its own sector number, so no tweak is carried across.
//!   A single data unit splits into block ranges, each from the encrypted
//!   tweak times alpha^b_i (b_i: the blocks before it; square-and-multiply
//!   in the tweak's field, constant time in the tweak); a partial last
//!   block and the whole one before it go by ciphertext stealing on the
//!   calling thread.
//! - **GCM-SIV**: the tag must be known before the first counter block, so
//!   sealing makes two passes, each split: the POLYVAL sums of the segments
//!   (combined as X = X·H^m_i ^ S_i, H^m by the GHASH power product on the
//!   byte-reversed images: POLYVAL is GHASH so mirrored, RFC 8452 appendix
//!   A), the tag on the calling thread, then the counter mode, segment `i`
//!   from the tag's first 32-bit word plus `b_i` modulo 2^32 (little
//!   endian, as RFC 8452 counts). Opening decrypts and hashes each segment
//!   in one pass per 16 KiB piece on its thread; the caller checks the tag
//!   and wipes the output on a mismatch, as the one-thread open does.

use super::block::Aes;
use super::tag::Tag;
use crate::backend::engine::{Engine, GcmEngine, SivMessage, XtsEngine};
use crate::backend::kernels::gcm::inc32;
use crate::backend::kernels::ghash_mul::ghash_mul_pow;
use crate::backend::kernels::siv::SIV_NONCE_LEN;
use crate::backend::InOut;
use crate::error::Result;
use crate::key::{Block, KeySize, BLOCK_LEN};
use zeroize::Zeroize;

/// The shortest segment a thread is given, in bytes; a message shorter
/// than two segments runs on one thread. Measured on a 2-core Zen 3 VM
/// (vaes256, AES-128-GCM seal, back-to-back calls, two threads against
/// one): with segments allowed down to 16 KiB, splitting gains 1.13x at
/// 32 KiB, 1.43x at 64 KiB, 1.65x at 128 KiB and 1.80x at 256 KiB. 128 KiB
/// is the conservative choice: a message that splits gains about 1.8x or
/// more (256 KiB: 1.84x in `aesx bench`), and shorter ones run exactly as
/// on one thread (16-192 KiB within 1.5%). The first call after a worker
/// has parked pays for waking it; that case was not measured.
pub const MIN_SEGMENT: usize = 128 * 1024;

/// The library's own unit tests split at three blocks, so that every split
/// of short messages is reached through the public calls.
#[cfg(not(test))]
fn min_segment() -> usize {
    MIN_SEGMENT
}

#[cfg(test)]
fn min_segment() -> usize {
    3 * BLOCK_LEN
}

/// The most threads one call uses, whatever was asked.
pub const MAX_THREADS: usize = 64;

/// `key` set by `set` (a key type's `with_threads`) to split a call of
/// `len` bytes over `threads` threads, or `key` itself when the call is too
/// short to split: the call would run on one thread anyway, and the copy of
/// the key would be wasted. For the bindings (C, Python), which take a
/// thread count per call where the Rust API keeps it in the key.
#[doc(hidden)]
pub fn for_call<T: Clone>(
    key: &T,
    threads: usize,
    len: usize,
    set: fn(T, usize) -> T,
) -> std::borrow::Cow<'_, T> {
    if threads > 1 && len >= 2 * MIN_SEGMENT {
        std::borrow::Cow::Owned(set(key.clone(), threads))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

/// The thread count a key keeps: 0 and 1 both mean the calling thread
/// alone; more than [`MAX_THREADS`] is held to it.
pub(crate) fn clamp_threads(n: usize) -> u8 {
    n.clamp(1, MAX_THREADS) as u8
}

/// Segments for `len` bytes in units of `unit` bytes on up to `threads`
/// threads: each at least [`MIN_SEGMENT`] bytes (and one unit), so 1 means
/// "do not split".
pub(crate) fn segments(len: usize, unit: usize, threads: usize) -> usize {
    let units = len / unit;
    let per = min_segment().div_ceil(unit).max(1);
    threads.min(units / per).max(1)
}

/// Runs `f(i, first_unit, segment)` on `parts` contiguous segments of `io`
/// (a whole number of `unit`-byte units; the segments as equal as units
/// allow), segment 0 on the calling thread and the others on the pool's
/// workers, and returns the results in order. A panic in a segment is
/// carried to the caller, as it would be on one thread.
pub(crate) fn for_each_segment<R: Send>(
    io: InOut<'_>,
    unit: usize,
    parts: usize,
    f: impl Fn(usize, u64, InOut<'_>) -> R + Sync,
) -> Vec<R> {
    debug_assert!(io.len().is_multiple_of(unit) && parts >= 1);
    let units = io.len() / unit;
    let (per, extra) = (units / parts, units % parts);
    let mut pieces = Vec::with_capacity(parts);
    let mut rest = io;
    let mut first = 0u64;
    for i in 0..parts {
        let n = per + usize::from(i < extra);
        let (piece, r) = rest.split_at(n * unit);
        pieces.push((first, piece));
        first += n as u64;
        rest = r;
    }
    let f = &f;
    let tasks = pieces
        .into_iter()
        .enumerate()
        .map(|(i, (first, piece))| {
            Box::new(move || f(i, first, piece)) as Box<dyn FnOnce() -> R + Send + '_>
        })
        .collect();
    super::pool::run(tasks)
}

/// One GCM message from its pre-counter block `j0` over `parts` segments
/// (see the module notes): returns the tag, truncated to `tag_len` bytes.
/// Lengths must have been checked.
pub(crate) fn gcm(
    engine: &GcmEngine,
    tag_len: usize,
    parts: usize,
    j0: &Block,
    aad: &[u8],
    io: InOut<'_>,
    encrypt: bool,
) -> Tag {
    let mut j0 = *j0;
    let len = io.len();
    let (blocks, mut tail) = io.split_blocks();
    let n = blocks.blocks();
    let mut acc = [0u8; BLOCK_LEN];
    ghash_padded(engine, &mut acc, aad);
    let mut sums = {
        let start = acc;
        for_each_segment(blocks, BLOCK_LEN, parts, |i, first, seg| {
            let mut ctr = j0;
            inc32(&mut ctr, 1);
            // Below 2^32 blocks: the length limit keeps it there.
            inc32(&mut ctr, first as u32);
            let mut s = if i == 0 { start } else { [0u8; BLOCK_LEN] };
            let m = seg.blocks() as u64;
            if encrypt {
                engine.gcm_encrypt(&mut ctr, &mut s, seg)
            } else {
                engine.gcm_decrypt(&mut ctr, &mut s, seg)
            }
            ctr.zeroize();
            (m, s)
        })
    };
    // X = X·H^m_i ^ S_i, segment by segment; H in the standard form.
    let mut h = [0u8; BLOCK_LEN];
    engine.encrypt_blocks(InOut::in_place(&mut h));
    let mut x = sums[0].1;
    for (m, s) in &sums[1..] {
        x = ghash_mul_pow(&x, &h, *m);
        for (a, b) in x.iter_mut().zip(s) {
            *a ^= b;
        }
    }
    h.zeroize();
    for (_, s) in sums.iter_mut() {
        s.zeroize();
    }
    if !tail.is_empty() {
        let t = tail.len();
        let mut ks = j0;
        inc32(&mut ks, 1);
        inc32(&mut ks, n as u32);
        engine.encrypt_blocks(InOut::in_place(&mut ks));
        let mut b = [0u8; BLOCK_LEN];
        tail.read_into(&mut b[..t]);
        let mut c = [0u8; BLOCK_LEN];
        for i in 0..t {
            c[i] = b[i] ^ ks[i];
        }
        tail.write_from(&c[..t]);
        // GHASH takes the ciphertext: the output when encrypting, the input
        // when decrypting.
        let ct = if encrypt { &c } else { &b };
        let mut padded = [0u8; BLOCK_LEN];
        padded[..t].copy_from_slice(&ct[..t]);
        engine.ghash_update(&mut x, &padded);
        ks.zeroize();
        b.zeroize();
        c.zeroize();
        padded.zeroize();
    }
    let mut lens = [0u8; BLOCK_LEN];
    lens[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(len as u64 * 8).to_be_bytes());
    engine.ghash_update(&mut x, &lens);
    engine.encrypt_blocks(InOut::in_place(&mut j0));
    let mut bytes = j0;
    for (t, a) in bytes.iter_mut().zip(&x) {
        *t ^= a;
    }
    j0.zeroize();
    x.zeroize();
    acc.zeroize();
    let tag = Tag::truncated(bytes, tag_len);
    bytes.zeroize();
    tag
}

/// GHASH of `data` into `acc`, the last partial block zero-padded.
fn ghash_padded(engine: &GcmEngine, acc: &mut Block, data: &[u8]) {
    let whole = data.len() - data.len() % BLOCK_LEN;
    engine.ghash_update(acc, &data[..whole]);
    if whole < data.len() {
        let mut last = [0u8; BLOCK_LEN];
        last[..data.len() - whole].copy_from_slice(&data[whole..]);
        engine.ghash_update(acc, &last);
    }
}

/// CTR's whole blocks over `parts` segments: segment `i` from the counter
/// block `next` plus its first block (modulo 2^128); `next` advances past
/// them all, as one [`BlockKernels::ctr_apply`] would leave it.
pub(crate) fn ctr_apply(aes: &Aes, parts: usize, next: &mut Block, io: InOut<'_>) {
    let start = u128::from_be_bytes(*next);
    let n = io.blocks() as u128;
    for_each_segment(io, BLOCK_LEN, parts, |_, first, seg| {
        let mut ctr = start.wrapping_add(u128::from(first)).to_be_bytes();
        aes.engine.ctr_apply(&mut ctr, seg);
        ctr.zeroize();
    });
    *next = start.wrapping_add(n).to_be_bytes();
}

/// One GCM-SIV message over `parts` segments (see the module notes) under
/// the key-generating key `engine` of `size`: with `received` `None`,
/// seals `io` and returns the tag; with the received tag, decrypts `io`
/// from it and returns the tag of the plaintext written (the caller
/// compares and wipes). Lengths must have been checked.
pub(crate) fn gcm_siv(
    engine: &Engine,
    size: KeySize,
    parts: usize,
    nonce: &[u8; SIV_NONCE_LEN],
    aad: &[u8],
    io: InOut<'_>,
    received: Option<&Block>,
) -> Result<Block> {
    let m = engine.siv_message(size, nonce, aad.len().max(io.len()))?;
    let len = io.len();
    let mut start = [0u8; BLOCK_LEN];
    m.hash(&mut start, aad);
    let (mut blocks, mut tail) = io.split_blocks();
    let n = blocks.blocks() as u64;
    let tag = match received {
        None => {
            let sums = for_each_segment(blocks.reborrow(), BLOCK_LEN, parts, |i, _, seg| {
                let mut s = if i == 0 { start } else { [0u8; BLOCK_LEN] };
                m.hash(&mut s, seg.input());
                (seg.blocks() as u64, s)
            });
            let mut s = polyval_combine(&m, sums);
            m.hash(&mut s, tail.input());
            let tag = m.finish(nonce, aad.len(), len, s);
            s.zeroize();
            for_each_segment(blocks, BLOCK_LEN, parts, |_, first, seg| {
                m.ctr32le(&siv_counter(&tag, first), seg);
            });
            m.ctr32le(&siv_counter(&tag, n), tail);
            tag
        }
        Some(received) => {
            let sums = for_each_segment(blocks, BLOCK_LEN, parts, |i, first, mut seg| {
                let mut s = if i == 0 { start } else { [0u8; BLOCK_LEN] };
                // Decrypted and hashed a piece at a time, while the
                // plaintext is still in the core's cache.
                let mut at = 0;
                while at < seg.len() {
                    let (_, rest) = seg.reborrow().split_at(at);
                    let (mut piece, _) = rest.split_at(SIV_OPEN_PIECE);
                    let b = first + (at / BLOCK_LEN) as u64;
                    m.ctr32le(&siv_counter(received, b), piece.reborrow());
                    // SAFETY: the counter mode wrote the whole piece.
                    m.hash(&mut s, unsafe { piece.written_output() });
                    at += piece.len();
                }
                (seg.blocks() as u64, s)
            });
            let mut s = polyval_combine(&m, sums);
            m.ctr32le(&siv_counter(received, n), tail.reborrow());
            // SAFETY: the counter mode wrote the whole tail.
            m.hash(&mut s, unsafe { tail.written_output() });
            let tag = m.finish(nonce, aad.len(), len, s);
            s.zeroize();
            tag
        }
    };
    start.zeroize();
    Ok(tag)
}

/// Bytes a GCM-SIV opening decrypts before hashing them: small enough to
/// stay in a core's L1 and L2 between the two passes.
const SIV_OPEN_PIECE: usize = 16 * 1024;

/// GCM-SIV's counter block `b` blocks past `tag`: the first 32-bit word,
/// little-endian, counts modulo 2^32 (RFC 8452), so it wraps within the
/// word and no carry reaches the rest of the block.
fn siv_counter(tag: &Block, b: u64) -> Block {
    let mut ctr = *tag;
    let w = u32::from_le_bytes([ctr[0], ctr[1], ctr[2], ctr[3]]);
    // A message has at most 2^32 blocks: `b as u32` is the count mod 2^32.
    ctr[..4].copy_from_slice(&w.wrapping_add(b as u32).to_le_bytes());
    ctr
}

/// POLYVAL over consecutive segments from their sums (the first from the
/// AAD's state, the rest from zero): X = X·H^m_i ^ S_i, in order.
fn polyval_combine(m: &SivMessage, mut sums: Vec<(u64, Block)>) -> Block {
    let mut x = sums[0].1;
    for (blocks, s) in &sums[1..] {
        x = m.times_h_pow(&x, *blocks);
        for (a, b) in x.iter_mut().zip(s) {
            *a ^= b;
        }
    }
    for (_, s) in sums.iter_mut() {
        s.zeroize();
    }
    x
}

/// XTS over consecutive sectors in `parts` segments, each from its own
/// sector number (`first` plus the sectors before it). The caller has
/// checked the sizes and that the last sector number does not overflow.
pub(crate) fn xts_sectors(
    engine: &XtsEngine,
    parts: usize,
    encrypt: bool,
    sector_size: usize,
    first: u128,
    io: InOut<'_>,
) {
    for_each_segment(io, sector_size, parts, |_, before, seg| {
        let start = first + u128::from(before);
        if encrypt {
            engine.encrypt_sectors(sector_size, start, seg);
        } else {
            engine.decrypt_sectors(sector_size, start, seg);
        }
    });
}

/// One XTS data unit over `parts` segments: whole blocks, segment `i`
/// from the encrypted tweak `t` times alpha^b_i (b_i: the blocks before
/// it), and, when the length is not a whole number of blocks, the last
/// whole block and the partial one by ciphertext stealing on the calling
/// thread, from its own power of alpha. The caller has checked the length.
pub(crate) fn xts_unit(engine: &XtsEngine, parts: usize, encrypt: bool, t: &Block, io: InOut<'_>) {
    let len = io.len();
    let main = if len.is_multiple_of(BLOCK_LEN) {
        len
    } else {
        len - len % BLOCK_LEN - BLOCK_LEN
    };
    let (head, rest) = io.split_at(main);
    let t0 = u128::from_le_bytes(*t);
    let parts = parts.min(segments(main, BLOCK_LEN, parts));
    for_each_segment(head, BLOCK_LEN, parts, |_, first, seg| {
        let mut ti = gf128_le_mul(t0, alpha_pow(first)).to_le_bytes();
        if encrypt {
            engine.encrypt(&mut ti, seg);
        } else {
            engine.decrypt(&mut ti, seg);
        }
        ti.zeroize();
    });
    if !rest.is_empty() {
        let b = (main / BLOCK_LEN) as u64;
        let mut tr = gf128_le_mul(t0, alpha_pow(b)).to_le_bytes();
        if encrypt {
            engine.encrypt_stealing(&mut tr, rest);
        } else {
            engine.decrypt_stealing(&mut tr, rest);
        }
        tr.zeroize();
    }
}

/// The product in XTS's field (IEEE 1619: bit i of the little-endian
/// integer is the coefficient of x^i, modulo x^128 + x^7 + x^2 + x + 1).
/// Constant time in `a` (a secret tweak): masks, no branch on its bits;
/// `b`'s bits pick by mask too.
pub(super) fn gf128_le_mul(mut a: u128, b: u128) -> u128 {
    let mut r = 0u128;
    for i in 0..128 {
        r ^= a & 0u128.wrapping_sub((b >> i) & 1);
        a = (a << 1) ^ (0x87 & 0u128.wrapping_sub(a >> 127));
    }
    r
}

/// alpha^m (alpha = x) in XTS's field, by square-and-multiply over the bits
/// of `m` (public: a block count).
pub(super) fn alpha_pow(m: u64) -> u128 {
    let mut p = 1u128;
    for bit in (0..64 - m.leading_zeros()).rev() {
        p = gf128_le_mul(p, p);
        if (m >> bit) & 1 == 1 {
            p = gf128_le_mul(p, 2);
        }
    }
    p
}
