//! What the core's ports do, measured: CPUID names instruction sets, not
//! which execution ports an instruction runs on, and some schedules are
//! only a win where two instructions do not share one. A probe times a
//! short loop once per process (a few microseconds, cached) and the
//! kernels pick their schedule from the answer, whatever the vendor.

use core::arch::x86_64::*;
use core::hint::black_box;
use core::sync::atomic::AtomicU8;

use crate::backend::kernels::cpu::{self, cached};

/// Iterations of each timed loop: about 8,000 core cycles.
const ITERS: u32 = 2000;
/// Timed runs of each loop; the fastest counts.
const RUNS: usize = 5;

/// Whether PCLMULQDQ runs beside the AES rounds: a loop of eight
/// independent AESENC chains with one carry-less multiply per eight AESENC
/// runs no more than 6% slower than the same loop without it. True where
/// PCLMULQDQ has a port of its own (Intel Golden Cove, measured: port 5,
/// AESENC on ports 0 and 1); expected false where it shares the AES pipes
/// (AMD Zen, where by that model one extra multiply per eight rounds
/// costs about 12%; not measured here).
pub(crate) fn clmul_beside_aes(t: cpu::Aesni) -> bool {
    static CACHE: AtomicU8 = AtomicU8::new(0);
    cached(&CACHE, || {
        let (mut plain, mut with) = (u64::MAX, u64::MAX);
        for _ in 0..RUNS {
            // SAFETY: `t` proves AES-NI, SSE4.1 and PCLMULQDQ.
            unsafe {
                plain = plain.min(aes_loop::<false>(t));
                with = with.min(aes_loop::<true>(t));
            }
        }
        // with <= 1.06 * plain, in integers.
        u8::from(with.saturating_mul(100) <= plain.saturating_mul(106))
    }) != 0
}

/// TSC ticks for `ITERS` rounds of eight AESENC chains, each round's last
/// state XORed into an accumulator, through PCLMULQDQ when `CLMUL`.
#[target_feature(enable = "aes,pclmulqdq,sse2")]
fn aes_loop<const CLMUL: bool>(_t: cpu::Aesni) -> u64 {
    let k = _mm_set_epi64x(0x0f1e_2d3c_4b5a_6978, 0x1122_3344_5566_7788);
    let mut s: [__m128i; 8] = core::array::from_fn(|i| _mm_set1_epi32(i as i32 + 1));
    let mut acc = _mm_setzero_si128();
    // SAFETY: RDTSC is part of x86-64.
    let t0 = unsafe { _rdtsc() };
    for _ in 0..black_box(ITERS) {
        for x in s.iter_mut() {
            *x = _mm_aesenc_si128(*x, k);
        }
        let v = if CLMUL {
            _mm_clmulepi64_si128::<0x00>(s[7], k)
        } else {
            s[7]
        };
        acc = _mm_xor_si128(acc, v);
    }
    // SAFETY: as above.
    let t1 = unsafe { _rdtsc() };
    black_box((s, acc));
    t1.wrapping_sub(t0)
}
