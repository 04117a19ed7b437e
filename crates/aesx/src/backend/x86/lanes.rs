//! One interface over the three x86 vector widths (one, two or four
//! 128-bit lanes), so that the GCM-SIV kernels (`polyval.rs`, `siv.rs`) are
//! written once and compiled per tier.
//!
//! Every method is `#[inline(always)]` and `unsafe`: it runs the intrinsic
//! of its width, and the caller must be inside a `#[target_feature]` kernel
//! of a tier that has it (the kernels are instantiated only from such
//! functions, each called with its tier's token in hand). Inlined there, the
//! intrinsics compile to single instructions.

use core::arch::x86_64::*;

pub(super) trait Lanes: Copy {
    /// 16-byte blocks per register.
    const BLOCKS: usize;
    unsafe fn load(p: *const u8) -> Self;
    unsafe fn store(p: *mut u8, v: Self);
    unsafe fn zero() -> Self;
    /// `x` in every lane.
    unsafe fn splat(x: __m128i) -> Self;
    /// `x` in lane 0, zeros elsewhere.
    unsafe fn lane0(x: __m128i) -> Self;
    /// The XOR of all lanes.
    unsafe fn fold(v: Self) -> __m128i;
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// Carry-less products per lane; `IMM` picks the 64-bit halves as
    /// PCLMULQDQ does.
    unsafe fn clmul<const IMM: i32>(a: Self, b: Self) -> Self;
    /// Swaps the 64-bit halves of each lane.
    unsafe fn swap64(a: Self) -> Self;
    /// Per-lane shifts by eight bytes (up, down).
    unsafe fn shl64(a: Self) -> Self;
    unsafe fn shr64(a: Self) -> Self;
    unsafe fn aesenc(a: Self, k: Self) -> Self;
    unsafe fn aesenclast(a: Self, k: Self) -> Self;
    /// Adds 32-bit words.
    unsafe fn add32(a: Self, b: Self) -> Self;
    /// Lane i holds i in its first 32-bit word, zeros elsewhere.
    unsafe fn lane_numbers() -> Self;
}

impl Lanes for __m128i {
    const BLOCKS: usize = 1;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller passes 16 readable bytes (the trait's contract).
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: the caller passes 16 writable bytes.
        unsafe { _mm_storeu_si128(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    unsafe fn splat(x: __m128i) -> Self {
        x
    }
    #[inline(always)]
    unsafe fn lane0(x: __m128i) -> Self {
        x
    }
    #[inline(always)]
    unsafe fn fold(v: Self) -> __m128i {
        v
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables PCLMULQDQ.
        unsafe { _mm_clmulepi64_si128::<IMM>(a, b) }
    }
    #[inline(always)]
    unsafe fn swap64(a: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_shuffle_epi32::<0x4e>(a) }
    }
    #[inline(always)]
    unsafe fn shl64(a: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_slli_si128::<8>(a) }
    }
    #[inline(always)]
    unsafe fn shr64(a: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_srli_si128::<8>(a) }
    }
    #[inline(always)]
    unsafe fn aesenc(a: Self, k: Self) -> Self {
        // SAFETY: the caller's kernel enables AES-NI.
        unsafe { _mm_aesenc_si128(a, k) }
    }
    #[inline(always)]
    unsafe fn aesenclast(a: Self, k: Self) -> Self {
        // SAFETY: the caller's kernel enables AES-NI.
        unsafe { _mm_aesenclast_si128(a, k) }
    }
    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_add_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn lane_numbers() -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_setzero_si128() }
    }
}

impl Lanes for __m256i {
    const BLOCKS: usize = 2;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller passes 32 readable bytes, in an AVX2 kernel.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: the caller passes 32 writable bytes, in an AVX2 kernel.
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn splat(x: __m128i) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_broadcastsi128_si256(x) }
    }
    #[inline(always)]
    unsafe fn lane0(x: __m128i) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_zextsi128_si256(x) }
    }
    #[inline(always)]
    unsafe fn fold(v: Self) -> __m128i {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables VPCLMULQDQ and AVX2.
        unsafe { _mm256_clmulepi64_epi128::<IMM>(a, b) }
    }
    #[inline(always)]
    unsafe fn swap64(a: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_shuffle_epi32::<0x4e>(a) }
    }
    #[inline(always)]
    unsafe fn shl64(a: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_bslli_epi128::<8>(a) }
    }
    #[inline(always)]
    unsafe fn shr64(a: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_bsrli_epi128::<8>(a) }
    }
    #[inline(always)]
    unsafe fn aesenc(a: Self, k: Self) -> Self {
        // SAFETY: the caller's kernel enables VAES and AVX2.
        unsafe { _mm256_aesenc_epi128(a, k) }
    }
    #[inline(always)]
    unsafe fn aesenclast(a: Self, k: Self) -> Self {
        // SAFETY: the caller's kernel enables VAES and AVX2.
        unsafe { _mm256_aesenclast_epi128(a, k) }
    }
    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_add_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn lane_numbers() -> Self {
        // SAFETY: the caller's kernel enables AVX2.
        unsafe { _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0) }
    }
}

impl Lanes for __m512i {
    const BLOCKS: usize = 4;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller passes 64 readable bytes, in an AVX-512 kernel.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: the caller passes 64 writable bytes, in an AVX-512 kernel.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn splat(x: __m128i) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_broadcast_i32x4(x) }
    }
    #[inline(always)]
    unsafe fn lane0(x: __m128i) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_zextsi128_si512(x) }
    }
    #[inline(always)]
    unsafe fn fold(v: Self) -> __m128i {
        // SAFETY: the caller's kernel enables AVX-512 F and AVX2.
        unsafe {
            let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
        }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_xor_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables VPCLMULQDQ and AVX-512 F.
        unsafe { _mm512_clmulepi64_epi128::<IMM>(a, b) }
    }
    #[inline(always)]
    unsafe fn swap64(a: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_shuffle_epi32::<0x4e>(a) }
    }
    #[inline(always)]
    unsafe fn shl64(a: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 BW.
        unsafe { _mm512_bslli_epi128::<8>(a) }
    }
    #[inline(always)]
    unsafe fn shr64(a: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 BW.
        unsafe { _mm512_bsrli_epi128::<8>(a) }
    }
    #[inline(always)]
    unsafe fn aesenc(a: Self, k: Self) -> Self {
        // SAFETY: the caller's kernel enables VAES and AVX-512 F.
        unsafe { _mm512_aesenc_epi128(a, k) }
    }
    #[inline(always)]
    unsafe fn aesenclast(a: Self, k: Self) -> Self {
        // SAFETY: the caller's kernel enables VAES and AVX-512 F.
        unsafe { _mm512_aesenclast_epi128(a, k) }
    }
    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_add_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn lane_numbers() -> Self {
        // SAFETY: the caller's kernel enables AVX-512 F.
        unsafe { _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0) }
    }
}
