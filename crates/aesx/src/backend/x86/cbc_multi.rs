//! Multi-buffer CBC encryption on x86: independent messages interleaved
//! across vector lanes, each lane with its own round keys and chain.
//!
//! Lanes per level: `vaes512` 16 (four zmm of four lanes), or 32 (eight
//! zmm) when at least 24 messages are waiting; `vaes256` 16 (eight ymm of
//! two); `aesni` 8 (eight xmm). One step of a lane is a chain of R dependent
//! AES instructions (about 4 cycles each on this CPU), so these counts keep
//! enough independent chains in flight to cover the latency. Measured on
//! Zen 5, the zmm kernel is then bound by loading the lanes' round keys (one
//! 512-bit load per cycle there; a key per register per round cannot all
//! stay in registers), which the 32-lane layout amortises a little better.
//! Lane round keys sit in memory, lane-interleaved, so that round `r` of a register's
//! lanes is one vector load (a memory operand of VAESENC).
//!
//! Port model (uops.info): a chain step of a register is `R` dependent AES
//! ops (the next block's XOR rides in the last round key), so the pipes
//! fill when the registers in flight reach latency x AES ops a cycle:
//!
//! | core | AES ops a cycle, latency | registers to fill | lanes here |
//! | --- | --- | --- | --- |
//! | Zen 3 | xmm/ymm: two (FP0/FP1), 4 | 8 | `aesni` 8, `vaes256` 16 (8 ymm) |
//! | Zen 4 | xmm/ymm: two; zmm: one (split in two halves), 4 | 8 ymm, 4 zmm | `vaes512` 16 or 32 (4 or 8 zmm) |
//! | Golden Cove | xmm/ymm: two (p0/p1); zmm: one (p0), 3 | 6 ymm, 3 zmm | as above |
//!
//! With the pipes full the bound is the tier's ECB rate, unless the loads
//! bind first: each AES op loads its lanes' round key (Zen 5's single
//! 512-bit load a cycle, above). On Zen 3's `vaes256` they do: each
//! register's round key is its own 32-byte load (the lanes' keys differ),
//! so a step of 16 blocks loads 88 keys and 16 blocks of data for AES-128
//! (136 for AES-256) at two 256-bit loads a cycle on Zen 3: 52 cycles
//! against the AES pipes' 40 (68 against 56). Yet a prototype with one key
//! broadcast to every lane (most loads gone) was only 5% faster: the eight
//! chains, which fill the pipes with no slack, bind about as tightly.
//!
//! Measured on Zen 3 (3.21 GHz, 2026-11-29, `cargo bench --bench modes --
//! cbc-enc-many`, messages of 1504 bytes, fraction of the tier's ECB rate):
//! `aesni` 16 messages 7.16 GB/s AES-128 (0.71), 5.55 AES-256 (0.76), 64
//! messages 7.39 (0.73) and 5.69 (0.78); `vaes256` 16 messages 10.85
//! (0.57; 0.69 of the load bound) and 8.57 (0.62; 0.71), 64 messages 11.5
//! (0.60; 0.73) and 8.92 (0.65; 0.74); one message at a time 1.21 and 0.90
//! GB/s (the chain). Both kernels gained 2-9% from loading the next block
//! just before the last round instead of before the rounds, where it held a
//! register per lane through them (`aesni` +8% with the chaining values no
//! longer kept apart: after the last step the states are the ciphertext).
//! Eight registers fill the AES pipes with no slack (ECB at eight runs at
//! 0.95 of the bound, at twelve 0.99); a quarter of the 16-message call is
//! outside the kernel (this scheduler, the key table's set-up and wipe).
//! Tried and not kept: twelve lanes on `aesni` (12-24% slower: 16
//! messages leave four lanes idle; spills) and twelve ymm registers (24
//! lanes) on `vaes256` (spills: 35% slower).
//!
//! The scheduler runs the lanes in lock step for as many blocks as the
//! shortest active message has left (capped at [`CHUNK`]), then refills the
//! lanes whose messages ended. Idle lanes encrypt a scratch buffer. Jobs are
//! grouped by level and round count: a multi-buffer kernel runs one of each.

use core::arch::x86_64::*;

use super::key::{Level, X86Aes};
use super::vector::{vaes_entries, Vector};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::kernels::{BlockKernels, CbcLanes, CbcManyKernels};
use crate::key::{Block, KeySize};

/// Most lanes of any kernel.
const MAX_LANES: usize = 32;
/// Messages needed before `vaes512` runs 32 lanes instead of 16.
const WIDE_JOBS: usize = 24;
/// Most blocks per kernel call, which sizes the idle lanes' scratch buffer.
const CHUNK: usize = 64;

/// Round keys of every lane, `k[r][lane]`, aligned for zmm loads. Keys
/// are written only to the first `rounds` rows and `lanes` lanes (a call's
/// round count and lane layout), and only those are wiped on drop: the
/// whole table is 7.5 KiB, and wiping all of it took a third of the
/// scheduler's time around a 16-message call.
#[repr(C, align(64))]
pub(super) struct LaneKeys {
    k: [[__m128i; MAX_LANES]; 15],
    rounds: usize,
    lanes: usize,
}

impl LaneKeys {
    /// A zeroed table for `rounds` round keys of `lanes` lanes.
    pub(super) fn new(rounds: usize, lanes: usize) -> LaneKeys {
        LaneKeys {
            k: [[zero(); MAX_LANES]; 15],
            rounds: rounds.min(15),
            lanes: lanes.min(MAX_LANES),
        }
    }

    /// Sets lane `l`'s round keys (at most `rounds`, `l` below `lanes`).
    pub(super) fn set(&mut self, l: usize, keys: &[__m128i]) {
        assert!(l < self.lanes && keys.len() <= self.rounds);
        for (row, rk) in self.k.iter_mut().zip(keys) {
            row[l] = *rk;
        }
    }
}

impl Drop for LaneKeys {
    fn drop(&mut self) {
        for row in &mut self.k[..self.rounds] {
            for k in &mut row[..self.lanes] {
                // SAFETY: `k` is a valid, aligned, exclusive reference; a
                // volatile write keeps the compiler from eliding the wipe.
                unsafe { core::ptr::write_volatile(k, _mm_setzero_si128()) };
            }
        }
    }
}

/// State of the lanes between kernel calls: per-lane chaining values and
/// data pointers (in place; each lane's message is its own `&mut [u8]`).
pub(super) struct Lanes {
    pub(super) iv: [__m128i; MAX_LANES],
    pub(super) ptr: [*mut u8; MAX_LANES],
}

impl CbcManyKernels for X86Aes {
    fn cbc_encrypt_many(lanes: &mut impl CbcLanes<Self>) {
        // The levels present, each with its token taken from one of the
        // keys (a level cannot be named without one).
        let mut levels: [Option<Level>; 3] = [None; 3];
        for i in 0..lanes.count() {
            if let Some((k, _, _)) = lanes.lane(i) {
                let slot = match k.level {
                    Level::Aesni(_) => 0,
                    Level::Vaes256(_) => 1,
                    Level::Vaes512(_) => 2,
                };
                levels[slot] = Some(k.level);
            }
        }
        for level in levels.into_iter().flatten() {
            for size in [KeySize::Aes128, KeySize::Aes192, KeySize::Aes256] {
                schedule(lanes, level, size);
            }
        }
    }
}

/// Message `i` if its key is of `level` and `size`.
fn fitting<L: CbcLanes<X86Aes>>(
    lanes: &mut L,
    i: usize,
    level: Level,
    size: KeySize,
) -> Option<(&X86Aes, &mut Block, &mut [u8])> {
    lanes
        .lane(i)
        .filter(|(k, _, _)| k.level == level && k.size == size)
}

fn schedule<L: CbcLanes<X86Aes>>(jobs: &mut L, level: Level, size: KeySize) {
    let n = jobs.count();
    let count = (0..n)
        .filter(|&i| fitting(jobs, i, level, size).is_some())
        .count();
    if count == 0 {
        return;
    }
    let wide = count >= WIDE_JOBS;
    let lanes = match level {
        Level::Aesni(_) => 8,
        Level::Vaes256(_) => 16,
        Level::Vaes512(_) if wide => 32,
        Level::Vaes512(_) => 16,
    };

    let mut scratch = [0u8; CHUNK * 16];
    let idle = scratch.as_mut_ptr();
    let mut keys = LaneKeys::new(size.rounds() + 1, lanes);
    let mut st = Lanes {
        iv: [zero(); MAX_LANES],
        ptr: [idle; MAX_LANES],
    };
    let mut owner = [usize::MAX; MAX_LANES];
    let mut left = [0usize; MAX_LANES];
    let mut next = 0;
    loop {
        // Hand finished lanes' chaining values back; refill them.
        for l in 0..lanes {
            if left[l] != 0 {
                continue;
            }
            if owner[l] != usize::MAX {
                if let Some((_, iv, _)) = jobs.lane(owner[l]) {
                    *iv = to_block(st.iv[l]);
                }
                owner[l] = usize::MAX;
            }
            st.ptr[l] = idle;
            while next < n {
                let j = next;
                next += 1;
                let Some((k, iv, data)) = fitting(jobs, j, level, size) else {
                    continue;
                };
                if data.is_empty() {
                    continue;
                }
                keys.set(l, &k.enc[..size.rounds() + 1]);
                st.iv[l] = from_block(iv);
                st.ptr[l] = data.as_mut_ptr();
                left[l] = data.len() / 16;
                owner[l] = j;
                break;
            }
        }
        let active: usize = owner[..lanes].iter().filter(|o| **o != usize::MAX).count();
        if active == 0 {
            break;
        }
        if active == 1 && next >= n {
            // One message left: its own chain is faster than a lock step
            // in which every other lane idles.
            let l = owner[..lanes]
                .iter()
                .position(|o| *o != usize::MAX)
                .unwrap_or(0);
            let chain = to_block(st.iv[l]);
            if let Some((k, iv, data)) = jobs.lane(owner[l]) {
                let done = data.len() - 16 * left[l];
                *iv = chain;
                k.cbc_encrypt(iv, InOut::in_place(&mut data[done..]));
            }
            break;
        }
        let steps = owner[..lanes]
            .iter()
            .zip(left.iter())
            .filter(|(o, _)| **o != usize::MAX)
            .map(|(_, n)| *n)
            .min()
            .unwrap_or(0)
            .min(CHUNK);
        // SAFETY: `level` holds its tier's token (see `run`). Every active lane's
        // pointer has at least `steps` blocks of its own message left; idle
        // lanes point at `scratch`, which holds CHUNK >= steps blocks (idle
        // lanes may share it: garbage in, garbage out, never read back).
        // Messages are distinct (`CbcLanes::lane`), so lanes never overlap.
        unsafe { run(level, size, wide, &keys, &mut st, steps) };
        for l in 0..lanes {
            if owner[l] != usize::MAX {
                left[l] -= steps;
                // SAFETY: stays inside (or one past the end of) the message.
                st.ptr[l] = unsafe { st.ptr[l].add(16 * steps) };
            }
        }
    }
}

/// Runs the kernel of `level` and `size` over its lanes (on `vaes512`, 32
/// lanes if `wide`).
///
/// # Safety
/// Every `st.ptr` valid for `steps` blocks.
unsafe fn run(
    level: Level,
    size: KeySize,
    wide: bool,
    keys: &LaneKeys,
    st: &mut Lanes,
    steps: usize,
) {
    // The pointers are valid as the caller guarantees; each arm's token
    // proves its kernel's features.
    match level {
        // SAFETY: the AES-NI token proves AES-NI, SSE4.1 and PCLMULQDQ.
        Level::Aesni(t) => unsafe {
            match size {
                KeySize::Aes128 => mb_aesni::<10, 8>(t, keys, st, steps),
                KeySize::Aes192 => mb_aesni::<12, 8>(t, keys, st, steps),
                KeySize::Aes256 => mb_aesni::<14, 8>(t, keys, st, steps),
            }
        },
        // SAFETY: the VAES-256 token proves VAES and AVX2.
        Level::Vaes256(t) => unsafe {
            match size {
                KeySize::Aes128 => mb_vaes256::<10, 8>(t, keys, st, steps),
                KeySize::Aes192 => mb_vaes256::<12, 8>(t, keys, st, steps),
                KeySize::Aes256 => mb_vaes256::<14, 8>(t, keys, st, steps),
            }
        },
        // SAFETY: the VAES-512 token proves VAES and AVX-512 F/BW/VL.
        Level::Vaes512(t) => unsafe {
            match (size, wide) {
                (KeySize::Aes128, true) => mb_vaes512::<10, 8>(t, keys, st, steps),
                (KeySize::Aes192, true) => mb_vaes512::<12, 8>(t, keys, st, steps),
                (KeySize::Aes256, true) => mb_vaes512::<14, 8>(t, keys, st, steps),
                (KeySize::Aes128, false) => mb_vaes512::<10, 4>(t, keys, st, steps),
                (KeySize::Aes192, false) => mb_vaes512::<12, 4>(t, keys, st, steps),
                (KeySize::Aes256, false) => mb_vaes512::<14, 4>(t, keys, st, steps),
            }
        },
    }
}

fn zero() -> __m128i {
    // SAFETY: SSE2 is part of the x86-64 baseline.
    unsafe { _mm_setzero_si128() }
}

fn to_block(v: __m128i) -> [u8; 16] {
    let mut b = [0u8; 16];
    // SAFETY: `b` is 16 writable bytes; SSE2 is baseline.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) };
    b
}

fn from_block(b: &[u8; 16]) -> __m128i {
    // SAFETY: `b` is 16 readable bytes; SSE2 is baseline.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Address of round key `r` of lane `l` (the first of a register's lanes).
#[inline(always)]
fn key_at(keys: &LaneKeys, r: usize, l: usize) -> *const __m128i {
    &keys.k[r][l]
}

vaes_entries! {
    fn mb_aesni / mb_vaes256 / mb_vaes512 <const R: usize, const G: usize>
        (keys: &LaneKeys, st: &mut Lanes, steps: usize) = mb_wide;
}

/// `BLOCKS * G` lanes as `G` registers of `BLOCKS` lanes (xmm: 8 lanes in
/// eight; ymm: 16 in eight; zmm: 16 or 32 in four or eight), in round-major order
/// ([`Vector::order`] after each round). Without the barrier LLVM ran some
/// registers through several rounds ahead of the others; with it, on Zen 3
/// (ymm, 16 messages of 16 KiB) AES-128 went from 9.3-10.0 to 11.0-11.2
/// GB/s and AES-256 from 7.6-7.7 to 8.5-8.8 (+12-15%). zmm takes the same
/// barrier, not measured here.
///
/// Each lane's chain is exactly `R` AES ops per block: the XOR that starts
/// block `s + 1` (plaintext, round key 0 and the chaining value) rides in
/// block `s`'s last round key, `AESENCLAST(b, k_R ^ w) = c ^ w` with
/// `w = p_{s+1} ^ k_0`, which is the next state itself; `c = (c ^ w) ^ w`
/// is recovered off the chain for the store. The next block is gathered
/// just before that round: gathered before the rounds, it held a register
/// per lane through them (Zen 3: xmm 4-5%, ymm 2-5% slower).
///
/// # Safety
/// Every `st.ptr` valid for `steps` blocks.
#[inline(always)]
pub(super) unsafe fn mb_wide<V: Vector, const R: usize, const G: usize>(
    v: V,
    keys: &LaneKeys,
    st: &mut Lanes,
    steps: usize,
) {
    trace::hit(match V::BLOCKS {
        1 => Kernel::AesniCbcMany,
        2 => Kernel::Vaes256CbcMany,
        _ => Kernel::Vaes512CbcMany,
    });
    let l = V::BLOCKS;
    // SAFETY: (all loads and stores below) `key_at` points into `keys`,
    // `BYTES` bytes from a lane index multiple of `BLOCKS`; `st.iv`
    // likewise; each `ptr[l * g + i]` is an active lane's pointer (or
    // scratch) with blocks `off / 16` < steps.
    let k = |r: usize, g: usize| unsafe { v.load(key_at(keys, r, l * g).cast()) };
    if steps == 0 {
        return;
    }
    let ptr = st.ptr;
    // b[g]: the state entering round 1 of the current block (plaintext ^
    // chain ^ round key 0).
    let mut b = [v.zero(); G];
    for (g, x) in b.iter_mut().enumerate() {
        // SAFETY: `st.iv` from lane `l * g`, a multiple of `BLOCKS`, holds
        // `BYTES` bytes; each lane's pointer has block 0 < steps.
        let (iv, p) = unsafe {
            (
                v.load(st.iv[l * g..].as_ptr().cast()),
                v.gather(&ptr[l * g..], 0),
            )
        };
        *x = v.xor3(p, iv, k(0, g));
    }
    for s in 0..steps {
        let off = 16 * s;
        for r in 1..R {
            for (g, x) in b.iter_mut().enumerate() {
                *x = v.aesenc(*x, k(r, g));
            }
            v.order(&mut b);
        }
        for (g, x) in b.iter_mut().enumerate() {
            // w: the next block's plaintext ^ round key 0 (zero after the
            // last), loaded here rather than before the rounds, where it
            // would hold a register each through them.
            let w = if s + 1 < steps {
                // SAFETY: block s + 1 < steps of each lane (or scratch).
                v.xor(unsafe { v.gather(&ptr[l * g..], off + 16) }, k(0, g))
            } else {
                v.zero()
            };
            // AESENCLAST(x, k_R ^ w) = c ^ w: the next state itself.
            *x = v.aesenclast(*x, v.xor(k(R, g), w));
            // SAFETY: each lane's pointer has block `off / 16` < steps (or
            // is scratch); lanes never overlap; block s + 1 was read above.
            unsafe { v.scatter(&ptr[l * g..], off, v.xor(*x, w)) };
        }
    }
    // After the last step w is zero, so `b` holds each lane's last
    // ciphertext block.
    for (g, x) in b.iter().enumerate() {
        // SAFETY: `st.iv` from lane `l * g`, a multiple of `BLOCKS`, holds
        // `BYTES` bytes.
        unsafe { v.store(st.iv[l * g..].as_mut_ptr().cast(), *x) };
    }
}
