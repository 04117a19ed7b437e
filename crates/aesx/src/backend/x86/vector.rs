//! One vector API over the x86 register widths, so that each kernel family
//! is written once and compiled for ymm (AVX2, 16 registers) and zmm
//! (AVX-512, 32 registers), as Linux's `aes-xts-avx` and `aes-gcm-avx10` do
//! with assembler macros, and, where a family serves the `aesni` tier too
//! (POLYVAL, the GCM-SIV counter mode), for xmm.
//!
//! [`Vector`] is implemented by the CPU tokens [`cpu::Aesni`],
//! [`cpu::Vaes256`] and [`cpu::Vaes512`] themselves: a method takes the
//! token as `self`, so holding the value that names a width is the proof
//! that its instructions exist, and the arithmetic methods are safe. The
//! methods that are one instruction on every width are one table
//! (`single_ops!`: the method, then its xmm, ymm and zmm intrinsic). Every
//! method is `#[inline(always)]` and has no `#[target_feature]` of its own;
//! a kernel is a generic `#[inline(always)]` function over `V: Vector`,
//! instantiated by thin `#[target_feature]` entry points
//! ([`vaes_entries!`]), inside which the intrinsics inline to single
//! instructions. Called from code without the features the methods stay
//! correct (the token still proves the CPU has them) but become calls:
//! check new kernels with `objdump -d`.
//!
//! Why one file of about a thousand lines: the trait, its three width
//! impls and the entry-point macro are one contract. Every method must be an
//! inline single instruction (or a short fixed sequence) on each width, and
//! the impls are read side by side against the trait to check that; split
//! across files, a method added to the trait without its zmm form, or with
//! a different lane order on one width, would be easy to miss.
//!
//! Lanes are 128-bit blocks: lane `l` of a register holds bytes
//! `16 l .. 16 l + 16` of a load. Shifts, shuffles and the carry-less
//! multiply act within each lane, as the instructions do.

use core::arch::x86_64::*;

use crate::backend::kernels::cpu::{Aesni, Vaes256, Vaes512};

/// Defines the `#[target_feature]` entry points of a generic kernel body:
/// `$n256` instantiates `$body::<Vaes256, ..>` with the ymm tier's features,
/// `$n512` instantiates `$body::<Vaes512, ..>` with the zmm tier's, and a
/// first name `$n128`, where given, `$body::<Aesni, ..>` with the `aesni`
/// tier's (for kernels that serve all three tiers from one source). The
/// token is the first argument of both the entry point and the body.
///
/// A macro because `#[target_feature]` cannot be generic: the feature
/// string differs per tier, and a generic function gets one attribute for
/// all its instances. Each entry point is a one-line forward; the kernel
/// itself is the generic body, which go-to-definition reaches from the
/// `= body` name.
///
/// ```ignore
/// vaes_entries! {
///     pub(super) fn ecb_256 / ecb_512 <const R: usize, const DEC: bool>
///         (keys: &[__m128i; 15], io: InOut<'_>) = ecb;
/// }
/// ```
macro_rules! vaes_entries {
    (
        $vis:vis fn $n256:ident / $n512:ident
        < $(const $c:ident : $ct:ty),* >
        ( $($a:ident : $t:ty),* $(,)? ) $(-> $r:ty)? = $body:ident;
    ) => {
        vaes_entries!(@entry "aes,sse4.1,pclmulqdq,avx,avx2,vaes,vpclmulqdq", Vaes256,
            $vis $n256 [$($c: $ct),*] ($($a: $t),*) [$($r)?] $body);
        vaes_entries!(
            @entry "aes,sse4.1,pclmulqdq,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl",
            Vaes512, $vis $n512 [$($c: $ct),*] ($($a: $t),*) [$($r)?] $body);
    };
    (
        $vis:vis fn $n128:ident / $n256:ident / $n512:ident
        < $(const $c:ident : $ct:ty),* >
        ( $($a:ident : $t:ty),* $(,)? ) $(-> $r:ty)? = $body:ident;
    ) => {
        vaes_entries!(@entry "aes,sse4.1,pclmulqdq", Aesni,
            $vis $n128 [$($c: $ct),*] ($($a: $t),*) [$($r)?] $body);
        vaes_entries! {
            $vis fn $n256 / $n512 <$(const $c: $ct),*> ($($a: $t),*) $(-> $r)? = $body;
        }
    };
    (
        @entry $feat:literal, $tok:ident, $vis:vis $n:ident [$($c:ident: $ct:ty),*]
        ($($a:ident: $t:ty),*) [$($r:ty)?] $body:ident
    ) => {
        #[doc = concat!("`", stringify!($body), "` on the `", stringify!($tok),
            "` tier (see `vaes_entries!`).")]
        ///
        /// # Safety
        /// The arguments must satisfy the body's contract; the token proves
        /// the CPU features.
        #[target_feature(enable = $feat)]
        $vis unsafe fn $n<$(const $c: $ct),*>(
            v: $crate::backend::kernels::cpu::$tok,
            $($a: $t),*
        ) $(-> $r)? {
            // SAFETY: the caller upholds the body's contract.
            unsafe { $body::<$crate::backend::kernels::cpu::$tok, $($c),*>(v, $($a),*) }
        }
    };
}

pub(crate) use vaes_entries;

/// A register width; implemented by the tier tokens (see the module
/// notes). `Self::V` is the register type.
///
/// The set covers the ECB/CBC/CTR, XTS, GCM, POLYVAL and GCM-SIV kernels; a
/// method that no kernel uses (`slli64`, `srli64`, and on xmm most lane
/// moves) is still tested below, hence the `allow`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) trait Vector: Copy + Into<Aesni> {
    /// `__m256i` or `__m512i`.
    type V: Copy;
    /// 16-byte blocks (lanes) per register.
    const BLOCKS: usize;
    /// Bytes per register.
    const BYTES: usize = 16 * Self::BLOCKS;
    /// Vector registers of the ISA (16 with AVX2, 32 with AVX-512): loops
    /// size their state so that keys and states fit.
    const REGS: usize;

    /// The one-lane (`aesni`) tier, which every width includes: for the
    /// 128-bit steps of a wide kernel (a final reduction, a last block).
    #[inline(always)]
    fn xmm(self) -> Aesni {
        self.into()
    }

    /// All zero.
    fn zero(self) -> Self::V;
    /// Reads `BYTES` bytes.
    ///
    /// # Safety
    /// `p` must be readable for `BYTES` bytes (no alignment needed).
    unsafe fn load(self, p: *const u8) -> Self::V;
    /// Writes `BYTES` bytes.
    ///
    /// # Safety
    /// `p` must be writable for `BYTES` bytes (no alignment needed).
    unsafe fn store(self, p: *mut u8, v: Self::V);
    /// Reads the first `blocks` blocks (1..=BLOCKS), zero in the others;
    /// the memory past them is not accessed. By default `load_bytes` of
    /// their bytes; ymm has a qword-masked load.
    ///
    /// # Safety
    /// `p` must be readable for `16 * blocks` bytes.
    #[inline(always)]
    unsafe fn load_blocks(self, p: *const u8, blocks: usize) -> Self::V {
        // SAFETY: the caller passes `16 * blocks` readable bytes.
        unsafe { self.load_bytes(p, 16 * blocks) }
    }
    /// Writes the first `blocks` blocks (1..=BLOCKS) of `v`; the memory
    /// past them is not touched. By default `store_bytes`, as `load_blocks`.
    ///
    /// # Safety
    /// `p` must be writable for `16 * blocks` bytes.
    #[inline(always)]
    unsafe fn store_blocks(self, p: *mut u8, v: Self::V, blocks: usize) {
        // SAFETY: the caller passes `16 * blocks` writable bytes.
        unsafe { self.store_bytes(p, v, 16 * blocks) }
    }
    /// Reads the first `len` bytes (0..=BYTES), zero in the others; the
    /// memory past them is not accessed. By default through a zeroed
    /// buffer, for the widths without byte-masked loads (SSE, AVX2; at most
    /// 32 bytes); zmm overrides it.
    ///
    /// # Safety
    /// `p` must be readable for `len` bytes.
    #[inline(always)]
    unsafe fn load_bytes(self, p: *const u8, len: usize) -> Self::V {
        debug_assert!(Self::BYTES <= 32);
        let mut buf = [0u8; 32];
        // SAFETY: the caller passes `len` (<= BYTES <= 32) readable bytes;
        // `buf` is a distinct local of 32 bytes.
        unsafe { core::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), len.min(Self::BYTES)) };
        // SAFETY: `buf` holds 32 >= BYTES readable bytes.
        unsafe { self.load(buf.as_ptr()) }
    }
    /// Writes the first `len` bytes (0..=BYTES) of `v`; the memory past
    /// them is not touched. By default through a buffer, as `load_bytes`.
    ///
    /// # Safety
    /// `p` must be writable for `len` bytes.
    #[inline(always)]
    unsafe fn store_bytes(self, p: *mut u8, v: Self::V, len: usize) {
        debug_assert!(Self::BYTES <= 32);
        let mut buf = [0u8; 32];
        // SAFETY: `buf` holds 32 >= BYTES writable bytes.
        unsafe { self.store(buf.as_mut_ptr(), v) };
        // SAFETY: the caller passes `len` (<= BYTES) writable bytes.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), p, len.min(Self::BYTES)) };
    }
    /// Lane `l` from `p[l] + off` (16 bytes each): one register of blocks
    /// of independent messages.
    ///
    /// # Safety
    /// `p` holds at least `BLOCKS` pointers, each readable for 16 bytes at
    /// `off`.
    unsafe fn gather(self, p: &[*mut u8], off: usize) -> Self::V;
    /// Lane `l` of `v` to `p[l] + off` (the inverse of [`Self::gather`]).
    ///
    /// # Safety
    /// `p` holds at least `BLOCKS` pointers, each writable for 16 bytes at
    /// `off`.
    unsafe fn scatter(self, p: &[*mut u8], off: usize, v: Self::V);
    /// Reads `BLOCKS` blocks from `b` (which must hold at least that many).
    #[inline(always)]
    fn load_lanes(self, b: &[__m128i]) -> Self::V {
        assert!(b.len() >= Self::BLOCKS);
        // SAFETY: `b` holds at least `BYTES` readable bytes.
        unsafe { self.load(b.as_ptr().cast()) }
    }

    /// `k` in every lane.
    fn broadcast(self, k: __m128i) -> Self::V;
    /// `x` in lane 0, zero in the others.
    fn zext(self, x: __m128i) -> Self::V;
    /// Round keys `0..=R` of `keys`, each in every lane (the others zero).
    #[inline(always)]
    fn broadcast_keys<const R: usize>(self, keys: &[__m128i; 15]) -> [Self::V; 15] {
        let mut out = [self.zero(); 15];
        for (o, k) in out.iter_mut().zip(keys.iter()).take(R + 1) {
            *o = self.broadcast(*k);
        }
        out
    }
    /// The 128-bit value `(hi << 64) | lo` in every lane.
    fn set_u64x2(self, hi: u64, lo: u64) -> Self::V;
    /// Lane `l` holds the integer `l` (low qword `l`, high qword 0): with
    /// [`Self::add64`], per-lane counters and shift amounts.
    fn lane_index(self) -> Self::V;
    /// Lane 0 of `v`.
    fn low_block(self, v: Self::V) -> __m128i;
    /// Lane `i` (< BLOCKS, may vary at run time) of `v`.
    fn block(self, v: Self::V, i: usize) -> __m128i;
    /// The XOR of all lanes of `v`.
    fn xor_lanes(self, v: Self::V) -> __m128i;
    /// Lanes moved up by one: lane `l` of the result is lane `l - 1` of
    /// `cur`, and lane 0 is the last lane of `prev` (the blocks preceding
    /// `cur`'s in a stream, for CBC decryption).
    fn shift_in(self, cur: Self::V, prev: Self::V) -> Self::V;

    /// `a ^ b`.
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a ^ b ^ c` (one instruction on AVX-512).
    fn xor3(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `a & b`.
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a | b`.
    fn or(self, a: Self::V, b: Self::V) -> Self::V;

    /// One AES encryption round per lane (AESENC).
    fn aesenc(self, b: Self::V, k: Self::V) -> Self::V;
    /// The last AES encryption round per lane (AESENCLAST).
    fn aesenclast(self, b: Self::V, k: Self::V) -> Self::V;
    /// One AES decryption round per lane (AESDEC, equivalent inverse
    /// cipher).
    fn aesdec(self, b: Self::V, k: Self::V) -> Self::V;
    /// The last AES decryption round per lane (AESDECLAST).
    fn aesdeclast(self, b: Self::V, k: Self::V) -> Self::V;
    /// The AES round instruction of direction `dec` (AESDEC* with the
    /// equivalent inverse cipher's keys) and kind `last` (AES*LAST), per
    /// lane. Kernels pass constants, so the choice folds away.
    #[inline(always)]
    fn aes_round(self, dec: bool, last: bool, b: Self::V, k: Self::V) -> Self::V {
        match (dec, last) {
            (false, false) => self.aesenc(b, k),
            (false, true) => self.aesenclast(b, k),
            (true, false) => self.aesdec(b, k),
            (true, true) => self.aesdeclast(b, k),
        }
    }
    /// A middle round of direction `dec` ([`Self::aes_round`]).
    #[inline(always)]
    fn round(self, dec: bool, b: Self::V, k: Self::V) -> Self::V {
        self.aes_round(dec, false, b, k)
    }
    /// The last round of direction `dec` ([`Self::aes_round`]).
    #[inline(always)]
    fn last(self, dec: bool, b: Self::V, k: Self::V) -> Self::V {
        self.aes_round(dec, true, b, k)
    }

    /// PSHUFB: byte `i` of each lane is byte `idx[i] & 15` of that lane of
    /// `v`, or zero if bit 7 of `idx[i]` is set.
    fn shuffle_bytes(self, v: Self::V, idx: Self::V) -> Self::V;
    /// PSHUFD with immediate `IMM` in each lane.
    fn shuffle32<const IMM: i32>(self, v: Self::V) -> Self::V;
    /// Per lane: the low qwords of `a` and `b` (PUNPCKLQDQ).
    fn unpacklo64(self, a: Self::V, b: Self::V) -> Self::V;
    /// Per lane: the high qwords of `a` and `b` (PUNPCKHQDQ).
    fn unpackhi64(self, a: Self::V, b: Self::V) -> Self::V;
    /// Per lane: bytes `N..N + 16` of the 32-byte `hi:lo` (PALIGNR).
    fn alignr<const N: i32>(self, hi: Self::V, lo: Self::V) -> Self::V;
    /// 32-bit lane additions (wrapping).
    fn add32(self, a: Self::V, b: Self::V) -> Self::V;
    /// 64-bit lane additions (wrapping).
    fn add64(self, a: Self::V, b: Self::V) -> Self::V;
    /// 64-bit lane subtractions (wrapping).
    fn sub64(self, a: Self::V, b: Self::V) -> Self::V;
    /// Each 128-bit lane shifted left by `N` bytes (0..=15), zeros in.
    fn bslli<const N: i32>(self, v: Self::V) -> Self::V;
    /// Each 128-bit lane shifted right by `N` bytes (0..=15), zeros in.
    fn bsrli<const N: i32>(self, v: Self::V) -> Self::V;
    /// Each qword shifted left by the low qword of `n` (64 or more gives
    /// 0).
    fn sll64(self, v: Self::V, n: __m128i) -> Self::V;
    /// Each qword shifted right by the low qword of `n` (64 or more gives
    /// 0).
    fn srl64(self, v: Self::V, n: __m128i) -> Self::V;
    /// Each qword shifted left by `N` bits (0..=63); a constant count, which
    /// compiles to the immediate form.
    #[inline(always)]
    fn slli64<const N: i32>(self, v: Self::V) -> Self::V {
        self.sll64(v, self.xmm().set_u64x2(0, N as u64))
    }
    /// Each qword shifted right by `N` bits (0..=63), as [`Self::slli64`].
    #[inline(always)]
    fn srli64<const N: i32>(self, v: Self::V) -> Self::V {
        self.srl64(v, self.xmm().set_u64x2(0, N as u64))
    }
    /// Each qword of `v` shifted left by the matching qword of `n` (64 or
    /// more gives 0).
    fn sllv64(self, v: Self::V, n: Self::V) -> Self::V;
    /// Each qword of `v` shifted right by the matching qword of `n` (64 or
    /// more gives 0).
    fn srlv64(self, v: Self::V, n: Self::V) -> Self::V;
    /// Carry-less multiply per lane (VPCLMULQDQ): bit 0 of `IMM` picks the
    /// qword of `a`, bit 4 that of `b`.
    fn clmul<const IMM: i32>(self, a: Self::V, b: Self::V) -> Self::V;

    /// Keeps the registers of `b` in round-major order: empty `asm!`s over
    /// all of them (eight per `asm!`) that the compiler cannot move
    /// computations across. Without it LLVM sometimes runs a few registers
    /// through all their rounds first and the dependent chains clog the AES
    /// scheduler. Costs no instruction.
    fn order<const N: usize>(self, b: &mut [Self::V; N]);
    /// [`Vector::order`] over `N` AES states (four, six or eight) and three
    /// product accumulators in one `asm!`, so that the products issued
    /// between two rounds stay there (two barriers would not tie them
    /// together): without it LLVM hoists a step's products to its start or
    /// sinks them below the rounds.
    fn order_acc<const N: usize>(self, b: &mut [Self::V; N], acc: &mut [Self::V; 3]);
}

/// An empty `asm!` that takes registers in and out and emits nothing: the
/// compiler can move no computation across it (see [`Vector::order`]). To
/// be used inside `unsafe`, whose argument is always the same: an empty
/// template, no instruction, no memory access, the registers unchanged.
///
/// A macro because `asm!` takes its operands as a written list, with the
/// register class by name: no generic can build one from a slice length or
/// a register type.
///
/// - `barrier!(class: place, ..)`: the places listed (GCM's states and
///   accumulators in one barrier).
/// - `barrier!(class; array)`: the registers of an array, eight per
///   barrier and the rest in one more (the length is a constant at the
///   call, so the loop and the match fold away).
/// - `barrier!(class; array, acc)`: an array of four, six or eight states
///   and three accumulators in one barrier (other lengths: one barrier
///   each).
macro_rules! barrier {
    ($class:ident; $b:expr, $a:expr) => {{
        let b = &mut $b[..];
        let a = &mut $a[..];
        match b.len() {
            4 => barrier!($class: b[0], b[1], b[2], b[3], a[0], a[1], a[2]),
            6 => barrier!($class: b[0], b[1], b[2], b[3], b[4], b[5], a[0], a[1], a[2]),
            8 => barrier!($class: b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                a[0], a[1], a[2]),
            _ => {
                barrier!($class; b);
                barrier!($class: a[0], a[1], a[2]);
            }
        }
    }};
    ($class:ident: $($p:expr),+ $(,)?) => {
        core::arch::asm!(
            concat!("/*", $(" {}", barrier!(@none $p),)+ " */"),
            $(inout($class) $p,)+
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    (@none $p:expr) => { "" };
    ($class:ident; $b:expr) => {{
        let mut rest = &mut $b[..];
        while rest.len() >= 8 {
            let (c, more) = rest.split_at_mut(8);
            barrier!($class: c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
            rest = more;
        }
        match rest.len() {
            0 => {}
            1 => barrier!($class: rest[0]),
            2 => barrier!($class: rest[0], rest[1]),
            3 => barrier!($class: rest[0], rest[1], rest[2]),
            4 => barrier!($class: rest[0], rest[1], rest[2], rest[3]),
            5 => barrier!($class: rest[0], rest[1], rest[2], rest[3], rest[4]),
            6 => barrier!($class: rest[0], rest[1], rest[2], rest[3], rest[4], rest[5]),
            _ => barrier!($class: rest[0], rest[1], rest[2], rest[3], rest[4], rest[5], rest[6]),
        }
    }};
}

/// Runs `$body` for each middle round `$r` = 1..=13 below `$nr`, written
/// out: LLVM does not unroll a round loop that holds `order` barriers, and
/// a rolled loop costs an index, a branch and a key load per round. A macro
/// because the body must be pasted in 13 times with `$r` a constant: a
/// closure called 13 times is not reliably inlined (a call per round in
/// the main loop), and stable Rust cannot mark a closure
/// `#[inline(always)]`.
macro_rules! middle_rounds {
    ($r:ident < $nr:expr => $body:block) => {
        middle_rounds!(@ $r $nr $body 1 2 3 4 5 6 7 8 9 10 11 12 13)
    };
    (@ $r:ident $nr:tt $body:block $($n:literal)*) => {
        $({
            let $r: usize = $n;
            if $r < $nr $body
        })*
    };
}
pub(crate) use middle_rounds;

/// Keeps a bulk loop's last round and store in block order: block `j`'s
/// last AES op, its store, then block `j + 1`'s, with `x` the next block's
/// state. An empty `asm!` that may touch memory (so the store before it
/// stays before) and hands `x` back (so the AES op after it stays after).
/// LLVM otherwise pairs two last rounds before two stores, and on Zen 3 that
/// cost AES-256 ECB 3% (0.95 of the AES port bound against 0.98 in order;
/// two-and-two by hand: 0.92). No instruction.
#[inline(always)]
pub(crate) fn after_store_xmm(x: &mut __m128i) {
    // SAFETY: an empty template; it reads and writes nothing (`nomem` is
    // left out only so that the compiler keeps memory accesses in order
    // around it).
    unsafe {
        core::arch::asm!(
            "/* {} */",
            inout(xmm_reg) * x,
            options(nostack, preserves_flags)
        )
    }
}

/// [`Vector::order`] for 128-bit registers (the AES-NI kernels): keeps the
/// states (eight or twelve) in round-major order at no instruction cost.
#[inline(always)]
pub(crate) fn order_xmm<const N: usize>(b: &mut [__m128i; N]) {
    // SAFETY: an empty template over SSE registers (x86-64 baseline).
    unsafe { barrier!(xmm_reg; b) }
}

/// [`Vector::order_acc`] for 128-bit registers.
#[inline(always)]
pub(crate) fn order_acc_xmm<const N: usize>(b: &mut [__m128i; N], acc: &mut [__m128i; 3]) {
    // SAFETY: an empty template over SSE registers (x86-64 baseline).
    unsafe { barrier!(xmm_reg; b, acc) }
}

/// The methods that are one instruction (or none) on every width, as one
/// table: the method, its operands (`V` is the width's register), then the
/// xmm, ymm and zmm function it is; and the unaligned load and store. A
/// macro because the intrinsics are distinct functions per width with no
/// trait over them: the table puts the three columns of 25 methods side by
/// side, where written out they would be 75 near-identical methods.
/// `single_ops!(xmm: V = __m128i, BLOCKS = 1, REGS = 16)` (or `ymm`, `zmm`)
/// writes the width's register type and sizes and its column of the table
/// into its impl.
macro_rules! single_ops {
    ($w:ident: V = $reg:ty, BLOCKS = $blocks:literal, REGS = $regs:literal) => {
        type V = $reg;
        const BLOCKS: usize = $blocks;
        const REGS: usize = $regs;

        #[inline(always)]
        unsafe fn load(self, p: *const u8) -> $reg {
            // SAFETY: `self` proves the width's features; the caller passes
            // `BYTES` readable bytes (no alignment needed).
            unsafe {
                single_ops!(@name $w _mm_loadu_si128 _mm256_loadu_si256 _mm512_loadu_si512)(p.cast())
            }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8, v: $reg) {
            // SAFETY: `self` proves the width's features; the caller passes
            // `BYTES` writable bytes (no alignment needed).
            unsafe {
                single_ops!(@name $w _mm_storeu_si128 _mm256_storeu_si256 _mm512_storeu_si512)(
                    p.cast(),
                    v,
                )
            }
        }
        single_ops! { @pick $w $reg;
            zero() -> V = _mm_setzero_si128 | _mm256_setzero_si256 | _mm512_setzero_si512;
            broadcast(k: __m128i) -> V
                = same | _mm256_broadcastsi128_si256 | _mm512_broadcast_i32x4;
            zext(x: __m128i) -> V = same | _mm256_zextsi128_si256 | _mm512_zextsi128_si512;
            low_block(v: V) -> __m128i = same | _mm256_castsi256_si128 | _mm512_castsi512_si128;
            xor(a: V, b: V) -> V = _mm_xor_si128 | _mm256_xor_si256 | _mm512_xor_si512;
            and(a: V, b: V) -> V = _mm_and_si128 | _mm256_and_si256 | _mm512_and_si512;
            or(a: V, b: V) -> V = _mm_or_si128 | _mm256_or_si256 | _mm512_or_si512;
            aesenc(b: V, k: V) -> V = _mm_aesenc_si128 | _mm256_aesenc_epi128 | _mm512_aesenc_epi128;
            aesenclast(b: V, k: V) -> V
                = _mm_aesenclast_si128 | _mm256_aesenclast_epi128 | _mm512_aesenclast_epi128;
            aesdec(b: V, k: V) -> V = _mm_aesdec_si128 | _mm256_aesdec_epi128 | _mm512_aesdec_epi128;
            aesdeclast(b: V, k: V) -> V
                = _mm_aesdeclast_si128 | _mm256_aesdeclast_epi128 | _mm512_aesdeclast_epi128;
            shuffle_bytes(v: V, idx: V) -> V
                = _mm_shuffle_epi8 | _mm256_shuffle_epi8 | _mm512_shuffle_epi8;
            shuffle32<IMM: i32>(v: V) -> V
                = _mm_shuffle_epi32 | _mm256_shuffle_epi32 | _mm512_shuffle_epi32;
            unpacklo64(a: V, b: V) -> V
                = _mm_unpacklo_epi64 | _mm256_unpacklo_epi64 | _mm512_unpacklo_epi64;
            unpackhi64(a: V, b: V) -> V
                = _mm_unpackhi_epi64 | _mm256_unpackhi_epi64 | _mm512_unpackhi_epi64;
            alignr<N: i32>(hi: V, lo: V) -> V
                = _mm_alignr_epi8 | _mm256_alignr_epi8 | _mm512_alignr_epi8;
            add32(a: V, b: V) -> V = _mm_add_epi32 | _mm256_add_epi32 | _mm512_add_epi32;
            add64(a: V, b: V) -> V = _mm_add_epi64 | _mm256_add_epi64 | _mm512_add_epi64;
            sub64(a: V, b: V) -> V = _mm_sub_epi64 | _mm256_sub_epi64 | _mm512_sub_epi64;
            bslli<N: i32>(v: V) -> V = _mm_bslli_si128 | _mm256_bslli_epi128 | _mm512_bslli_epi128;
            bsrli<N: i32>(v: V) -> V = _mm_bsrli_si128 | _mm256_bsrli_epi128 | _mm512_bsrli_epi128;
            sll64(v: V, n: __m128i) -> V = _mm_sll_epi64 | _mm256_sll_epi64 | _mm512_sll_epi64;
            srl64(v: V, n: __m128i) -> V = _mm_srl_epi64 | _mm256_srl_epi64 | _mm512_srl_epi64;
            sllv64(v: V, n: V) -> V = sllv64_xmm | _mm256_sllv_epi64 | _mm512_sllv_epi64;
            srlv64(v: V, n: V) -> V = srlv64_xmm | _mm256_srlv_epi64 | _mm512_srlv_epi64;
            clmul<IMM: i32>(a: V, b: V) -> V
                = _mm_clmulepi64_si128 | _mm256_clmulepi64_epi128 | _mm512_clmulepi64_epi128;
        }
    };
    (@pick $w:ident $reg:ty; $($m:ident $(<$c:ident: $ct:ty>)? ($($a:ident: $at:ident),*) -> $rt:ident
        = $x:ident | $y:ident | $z:ident;)*) => {
        $(single_ops!(@col $w $reg, $m [$($c: $ct)?] ($($a: $at),*) $rt, $x $y $z);)*
    };
    (@col xmm $reg:ty, $m:ident $g:tt $args:tt $rt:ident, $x:ident $y:ident $z:ident) => {
        single_ops!(@method $reg, $m $g $args $rt, $x);
    };
    (@col ymm $reg:ty, $m:ident $g:tt $args:tt $rt:ident, $x:ident $y:ident $z:ident) => {
        single_ops!(@method $reg, $m $g $args $rt, $y);
    };
    (@col zmm $reg:ty, $m:ident $g:tt $args:tt $rt:ident, $x:ident $y:ident $z:ident) => {
        single_ops!(@method $reg, $m $g $args $rt, $z);
    };
    (@name xmm $x:ident $y:ident $z:ident) => { $x };
    (@name ymm $x:ident $y:ident $z:ident) => { $y };
    (@name zmm $x:ident $y:ident $z:ident) => { $z };
    (@ty $reg:ty, V) => { $reg };
    (@ty $reg:ty, __m128i) => { __m128i };
    (@method $reg:ty, $m:ident [$($c:ident: $ct:ty)?] ($($a:ident: $at:ident),*) $rt:ident,
        $f:ident) => {
        #[inline(always)]
        // SSE2 intrinsics need no `unsafe` on x86-64; the others do.
        #[allow(unused_unsafe)]
        fn $m$(<const $c: $ct>)?(self, $($a: single_ops!(@ty $reg, $at)),*)
            -> single_ops!(@ty $reg, $rt) {
            // SAFETY: `self`, the width's tier token, proves the features
            // of the width's intrinsic.
            unsafe { $f$(::<$c>)?($($a),*) }
        }
    };
}

/// The xmm column's value itself (`broadcast`, `zext`, `low_block` of one
/// lane).
#[inline(always)]
fn same(x: __m128i) -> __m128i {
    x
}

/// AVX2's VPSLLVQ on SSE: each qword shifted by its own count (64 or more
/// gives 0).
#[inline]
#[target_feature(enable = "sse4.1")]
fn sllv64_xmm(v: __m128i, n: __m128i) -> __m128i {
    per_qword_xmm(v, n, |v, c| _mm_sll_epi64(v, c))
}

/// AVX2's VPSRLVQ on SSE, as [`sllv64_xmm`].
#[inline]
#[target_feature(enable = "sse4.1")]
fn srlv64_xmm(v: __m128i, n: __m128i) -> __m128i {
    per_qword_xmm(v, n, |v, c| _mm_srl_epi64(v, c))
}

/// `shift` (PSLLQ or PSRLQ, which shift both qwords by the low qword of
/// the count, 64 or more giving 0) once by each qword of `n`, the results'
/// qwords blended.
#[inline]
#[target_feature(enable = "sse4.1")]
fn per_qword_xmm(v: __m128i, n: __m128i, shift: impl Fn(__m128i, __m128i) -> __m128i) -> __m128i {
    let lo = shift(v, n);
    let hi = shift(v, _mm_unpackhi_epi64(n, n));
    _mm_blend_epi16::<0xf0>(lo, hi)
}

// A wider tier includes the `aesni` one (`cpu` narrows its tokens).
impl From<Vaes256> for Aesni {
    #[inline(always)]
    fn from(t: Vaes256) -> Aesni {
        t.aesni()
    }
}

impl From<Vaes512> for Aesni {
    #[inline(always)]
    fn from(t: Vaes512) -> Aesni {
        t.aesni()
    }
}

// One lane: the `aesni` tier, whose token proves AES-NI, SSE4.1 (with
// SSSE3) and PCLMULQDQ: the SAFETY argument of each `unsafe` block below
// that has no comment of its own. Lane moves are no-ops.
impl Vector for Aesni {
    single_ops!(xmm: V = __m128i, BLOCKS = 1, REGS = 16);

    #[inline(always)]
    unsafe fn gather(self, p: &[*mut u8], off: usize) -> __m128i {
        // SAFETY: the caller passes 16 readable bytes at `p[0] + off`.
        unsafe { self.load(p[0].add(off)) }
    }
    #[inline(always)]
    unsafe fn scatter(self, p: &[*mut u8], off: usize, v: __m128i) {
        // SAFETY: the caller passes 16 writable bytes at `p[0] + off`.
        unsafe { self.store(p[0].add(off), v) }
    }
    #[inline(always)]
    fn set_u64x2(self, hi: u64, lo: u64) -> __m128i {
        // SAFETY: SSE2, baseline on x86-64.
        unsafe { _mm_set_epi64x(hi as i64, lo as i64) }
    }
    #[inline(always)]
    fn lane_index(self) -> __m128i {
        self.zero()
    }
    #[inline(always)]
    fn block(self, v: __m128i, _i: usize) -> __m128i {
        v
    }
    #[inline(always)]
    fn xor_lanes(self, v: __m128i) -> __m128i {
        v
    }
    #[inline(always)]
    fn shift_in(self, _cur: __m128i, prev: __m128i) -> __m128i {
        prev
    }
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        self.xor(self.xor(a, b), c)
    }
    #[inline(always)]
    fn order<const N: usize>(self, b: &mut [__m128i; N]) {
        order_xmm(b);
    }
    #[inline(always)]
    fn order_acc<const N: usize>(self, b: &mut [__m128i; N], acc: &mut [__m128i; 3]) {
        order_acc_xmm(b, acc);
    }
}

// Every method below calls intrinsics of the ymm tier (AVX2, VAES,
// VPCLMULQDQ); `self` is the token that detection makes only when the CPU
// has them, which is the SAFETY argument of each `unsafe` block that has no
// comment of its own.
impl Vector for Vaes256 {
    single_ops!(ymm: V = __m256i, BLOCKS = 2, REGS = 16);

    #[inline(always)]
    unsafe fn load_blocks(self, p: *const u8, blocks: usize) -> __m256i {
        let hi = if blocks > 1 { -1 } else { 0 };
        // SAFETY: `self` proves AVX2; VPMASKMOVQ does not access the
        // masked-off qwords (nor fault on them), and the caller passes the
        // unmasked `16 * blocks` bytes.
        unsafe { _mm256_maskload_epi64(p.cast(), _mm256_set_epi64x(hi, hi, -1, -1)) }
    }
    #[inline(always)]
    unsafe fn store_blocks(self, p: *mut u8, v: __m256i, blocks: usize) {
        let hi = if blocks > 1 { -1 } else { 0 };
        // SAFETY: `self` proves AVX2; VPMASKMOVQ does not access the
        // masked-off qwords, and the caller passes the `16 * blocks` bytes.
        unsafe { _mm256_maskstore_epi64(p.cast(), _mm256_set_epi64x(hi, hi, -1, -1), v) }
    }
    #[inline(always)]
    unsafe fn gather(self, p: &[*mut u8], off: usize) -> __m256i {
        // SAFETY: the caller passes 16 readable bytes at each `p[l] + off`.
        unsafe {
            let x = _mm256_castsi128_si256(_mm_loadu_si128(p[0].add(off).cast()));
            _mm256_inserti128_si256::<1>(x, _mm_loadu_si128(p[1].add(off).cast()))
        }
    }
    #[inline(always)]
    unsafe fn scatter(self, p: &[*mut u8], off: usize, v: __m256i) {
        // SAFETY: the caller passes 16 writable bytes at each `p[l] + off`.
        unsafe {
            _mm_storeu_si128(p[0].add(off).cast(), _mm256_castsi256_si128(v));
            _mm_storeu_si128(p[1].add(off).cast(), _mm256_extracti128_si256::<1>(v));
        }
    }
    #[inline(always)]
    fn set_u64x2(self, hi: u64, lo: u64) -> __m256i {
        // SAFETY: `self`, the VAES-256 token, proves AVX2.
        unsafe { _mm256_set_epi64x(hi as i64, lo as i64, hi as i64, lo as i64) }
    }
    #[inline(always)]
    fn lane_index(self) -> __m256i {
        // SAFETY: `self`, the VAES-256 token, proves AVX2.
        unsafe { _mm256_set_epi64x(0, 1, 0, 0) }
    }
    #[inline(always)]
    fn block(self, v: __m256i, i: usize) -> __m128i {
        // SAFETY: `self`, the VAES-256 token, proves AVX2.
        unsafe {
            if i == 0 {
                _mm256_castsi256_si128(v)
            } else {
                _mm256_extracti128_si256::<1>(v)
            }
        }
    }
    #[inline(always)]
    fn xor_lanes(self, v: __m256i) -> __m128i {
        // SAFETY: `self`, the VAES-256 token, proves AVX2.
        unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
    }
    #[inline(always)]
    fn shift_in(self, cur: __m256i, prev: __m256i) -> __m256i {
        // SAFETY: `self`, the VAES-256 token, proves AVX2.
        unsafe { _mm256_permute2x128_si256::<0x21>(prev, cur) }
    }
    #[inline(always)]
    fn xor3(self, a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        self.xor(self.xor(a, b), c)
    }
    #[inline(always)]
    fn order<const N: usize>(self, b: &mut [__m256i; N]) {
        // ymm operands need AVX in the function that names them; inlined
        // into an entry point with the features, `go` is no call.
        #[inline]
        #[target_feature(enable = "avx")]
        fn go<const N: usize>(b: &mut [__m256i; N]) {
            // SAFETY: an empty template: no instruction, no memory access.
            unsafe { barrier!(ymm_reg; b) }
        }
        // SAFETY: `self`, the VAES-256 token, proves AVX.
        unsafe { go(b) }
    }
    #[inline(always)]
    fn order_acc<const N: usize>(self, b: &mut [__m256i; N], acc: &mut [__m256i; 3]) {
        // As `order`.
        #[inline]
        #[target_feature(enable = "avx")]
        fn go<const N: usize>(b: &mut [__m256i; N], acc: &mut [__m256i; 3]) {
            // SAFETY: an empty template: no instruction, no memory access.
            unsafe { barrier!(ymm_reg; b, acc) }
        }
        // SAFETY: `self`, the VAES-256 token, proves AVX.
        unsafe { go(b, acc) }
    }
}

// As for `Vaes256`: `self` proves AVX-512 F/BW/VL, VAES and VPCLMULQDQ.
impl Vector for Vaes512 {
    single_ops!(zmm: V = __m512i, BLOCKS = 4, REGS = 32);

    #[inline(always)]
    unsafe fn load_bytes(self, p: *const u8, len: usize) -> __m512i {
        let mask = byte_mask(len);
        // SAFETY: `self` proves AVX-512BW; masked-off bytes are neither
        // accessed nor faulted on, and the caller passes the `len` unmasked
        // bytes.
        unsafe { _mm512_maskz_loadu_epi8(mask, p.cast()) }
    }
    #[inline(always)]
    unsafe fn store_bytes(self, p: *mut u8, v: __m512i, len: usize) {
        let mask = byte_mask(len);
        // SAFETY: `self` proves AVX-512 BW; masked-off bytes are not
        // accessed, and the caller passes the `len` unmasked bytes.
        unsafe { _mm512_mask_storeu_epi8(p.cast(), mask, v) }
    }
    #[inline(always)]
    unsafe fn gather(self, p: &[*mut u8], off: usize) -> __m512i {
        // SAFETY: the caller passes 16 readable bytes at each `p[l] + off`.
        unsafe {
            let q = |l: usize| _mm_loadu_si128(p[l].add(off).cast());
            let x = _mm512_castsi128_si512(q(0));
            let x = _mm512_inserti32x4::<1>(x, q(1));
            let x = _mm512_inserti32x4::<2>(x, q(2));
            _mm512_inserti32x4::<3>(x, q(3))
        }
    }
    #[inline(always)]
    unsafe fn scatter(self, p: &[*mut u8], off: usize, v: __m512i) {
        // SAFETY: the caller passes 16 writable bytes at each `p[l] + off`.
        unsafe {
            let q = |l: usize| p[l].add(off).cast::<__m128i>();
            _mm_storeu_si128(q(0), _mm512_castsi512_si128(v));
            _mm_storeu_si128(q(1), _mm512_extracti32x4_epi32::<1>(v));
            _mm_storeu_si128(q(2), _mm512_extracti32x4_epi32::<2>(v));
            _mm_storeu_si128(q(3), _mm512_extracti32x4_epi32::<3>(v));
        }
    }
    #[inline(always)]
    fn set_u64x2(self, hi: u64, lo: u64) -> __m512i {
        let (h, l) = (hi as i64, lo as i64);
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe { _mm512_set_epi64(h, l, h, l, h, l, h, l) }
    }
    #[inline(always)]
    fn lane_index(self) -> __m512i {
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe { _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0) }
    }
    #[inline(always)]
    fn block(self, v: __m512i, i: usize) -> __m128i {
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe {
            let idx = _mm512_add_epi64(
                _mm512_set1_epi64(2 * i as i64),
                _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
            );
            _mm512_castsi512_si128(_mm512_permutexvar_epi64(idx, v))
        }
    }
    #[inline(always)]
    fn xor_lanes(self, v: __m512i) -> __m128i {
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe {
            let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
        }
    }
    #[inline(always)]
    fn shift_in(self, cur: __m512i, prev: __m512i) -> __m512i {
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe { _mm512_alignr_epi64::<6>(cur, prev) }
    }
    #[inline(always)]
    fn xor3(self, a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe { _mm512_ternarylogic_epi64::<0x96>(a, b, c) }
    }
    #[inline(always)]
    fn order<const N: usize>(self, b: &mut [__m512i; N]) {
        // As on ymm, with AVX-512 F for zmm operands.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn go<const N: usize>(b: &mut [__m512i; N]) {
            // SAFETY: an empty template: no instruction, no memory access.
            unsafe { barrier!(zmm_reg; b) }
        }
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe { go(b) }
    }
    #[inline(always)]
    fn order_acc<const N: usize>(self, b: &mut [__m512i; N], acc: &mut [__m512i; 3]) {
        // As `order`.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn go<const N: usize>(b: &mut [__m512i; N], acc: &mut [__m512i; 3]) {
            // SAFETY: an empty template: no instruction, no memory access.
            unsafe { barrier!(zmm_reg; b, acc) }
        }
        // SAFETY: `self`, the VAES-512 token, proves AVX-512 F.
        unsafe { go(b, acc) }
    }
}

/// 32 bytes of ones then 32 of zeros: a byte mask of the first `n` bytes
/// of a ymm (xmm) register is the 32 (16) bytes at `32 - n`.
pub(super) static ONES_THEN_ZEROS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        t[i] = 0xff;
        i += 1;
    }
    t
};

/// Input read ahead of a streaming loop, in bytes past the current step.
pub(super) const READ_AHEAD: usize = 2048;
/// Output fetched ahead of a streaming loop, in bytes past the current step.
pub(super) const WRITE_AHEAD: usize = 1024;
/// Calls from this many bytes on prefetch ([`prefetch_step`]): out of
/// place that is half a megabyte of input and output, where the smallest
/// L2 caches of these cores (1 MiB on Zen 4) start to be outgrown.
pub(super) const PREFETCH_MIN: usize = 256 << 10;

/// Prefetches the `bytes` of input `READ_AHEAD` past `src` and the output
/// lines `WRITE_AHEAD` past `dst` (a line this core alone reads arrives
/// exclusive, so the stores find it writable instead of each waiting for a
/// read-for-ownership; PREFETCHW measured the same and is not on every
/// AES-NI CPU). For the main loops of the streaming kernels on messages
/// larger than the L2 cache. Measured out of place at 1 MiB (2 MiB of input
/// and output; family 6 model 167 Xeon): VAES GCM 5-20% faster (decryption
/// 12-20%), XTS and CTR 1-3%; at 16 KiB, and in place at 1 MiB, no
/// difference measured in any mode (within this machine's +-3% noise).
/// Calls below [`PREFETCH_MIN`] bytes skip it (`on`, decided once per
/// call): their data is in the caches or in the hardware prefetcher's reach,
/// and the sixteen instructions per step would be pure overhead. A prefetch never faults, so the addresses
/// past the end of the buffers are harmless (`wrapping_add`: they are never
/// dereferenced).
#[inline(always)]
pub(super) fn prefetch_step(on: bool, src: *const u8, dst: *mut u8, bytes: usize) {
    if !on {
        return;
    }
    let mut off = 0;
    while off < bytes {
        let r = src.wrapping_add(READ_AHEAD + off);
        let w = dst.wrapping_add(WRITE_AHEAD + off);
        // SAFETY: a prefetch is a hint: it reads nothing architecturally and
        // never faults, whatever the address; SSE is baseline on x86-64.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(r.cast());
            _mm_prefetch::<_MM_HINT_T0>(w.cast::<i8>());
        }
        off += 64;
    }
}

/// The byte mask of the first `len` (0..=64) bytes of a zmm register.
#[inline(always)]
pub(super) fn byte_mask(len: usize) -> __mmask64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

#[cfg(all(test, feature = "std"))]
pub(super) mod tests {
    //! Every method against the 128-bit instruction on each lane (or a
    //! byte-level model), on each width the CPU has.

    use super::*;
    use crate::backend::kernels::cpu;

    fn bytes<V: Vector>(v: V, x: V::V) -> Vec<u8> {
        let mut out = vec![0u8; V::BYTES];
        // SAFETY: `out` is `BYTES` writable bytes.
        unsafe { v.store(out.as_mut_ptr(), x) };
        out
    }

    fn lanes<V: Vector>(v: V, x: V::V) -> Vec<__m128i> {
        let b = bytes(v, x);
        // SAFETY: each chunk is 16 readable bytes.
        b.chunks_exact(16)
            .map(|c| unsafe { _mm_loadu_si128(c.as_ptr().cast()) })
            .collect()
    }

    fn bits(x: __m128i) -> u128 {
        let mut b = [0u8; 16];
        // SAFETY: `b` is 16 writable bytes; SSE2 is baseline on x86-64.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) };
        u128::from_le_bytes(b)
    }

    /// `shift` of each qword of `x` by the matching qword of `s`, 0 where
    /// that count is 64 or more (the variable shifts' rule).
    fn per_qword(x: __m128i, s: __m128i, shift: fn(u64, u32) -> Option<u64>) -> __m128i {
        let (x, s) = (bits(x), bits(s));
        let q = |x: u128, s: u128| {
            shift(x as u64, s as u64 as u32)
                .filter(|_| (s as u64) < 64)
                .unwrap_or(0) as u128
        };
        let r = q(x, s) | (q(x >> 64, s >> 64) << 64);
        // SAFETY: SSE2, baseline on x86-64.
        unsafe { _mm_set_epi64x((r >> 64) as i64, r as i64) }
    }

    /// A register of pseudo-random bytes.
    fn random<V: Vector>(v: V, seed: u64) -> V::V {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let b: Vec<u8> = (0..V::BYTES)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 24) as u8
            })
            .collect();
        // SAFETY: `b` is `BYTES` readable bytes.
        unsafe { v.load(b.as_ptr()) }
    }

    /// `got` equals `f` applied lane by lane to the lanes of `a` and `b`.
    fn lanewise<V: Vector>(
        v: V,
        got: V::V,
        a: V::V,
        b: V::V,
        f: impl Fn(__m128i, __m128i) -> __m128i,
        what: &str,
    ) {
        let (g, a, b) = (lanes(v, got), lanes(v, a), lanes(v, b));
        for l in 0..V::BLOCKS {
            assert_eq!(bits(g[l]), bits(f(a[l], b[l])), "{what}, lane {l}");
        }
    }

    /// A case of `check`: a name, a method of the width over two registers,
    /// and the 128-bit instruction it must match on every lane.
    type Case<V> = (
        &'static str,
        fn(V, <V as Vector>::V, <V as Vector>::V) -> <V as Vector>::V,
        fn(__m128i, __m128i) -> __m128i,
    );

    // SAFETY (every `unsafe` block in the reference closures below): the
    // test runs only with a VAES token or the emulation's AES-NI one, which
    // imply AES-NI, PCLMULQDQ and SSE4.1 (with SSSE3), all that the 128-bit
    // instructions need.
    #[allow(clippy::undocumented_unsafe_blocks)]
    pub(in crate::backend::x86) fn check<V: Vector>(v: V) {
        for seed in 0..8 {
            let (a, b, c) = (
                random(v, seed),
                random(v, seed + 100),
                random(v, seed + 200),
            );
            let cases: [Case<V>; 23] = [
                (
                    "xor",
                    |v, a, b| v.xor(a, b),
                    |a, b| unsafe { _mm_xor_si128(a, b) },
                ),
                (
                    "and",
                    |v, a, b| v.and(a, b),
                    |a, b| unsafe { _mm_and_si128(a, b) },
                ),
                (
                    "or",
                    |v, a, b| v.or(a, b),
                    |a, b| unsafe { _mm_or_si128(a, b) },
                ),
                (
                    "aesenc",
                    |v, a, b| v.aesenc(a, b),
                    |a, b| unsafe { _mm_aesenc_si128(a, b) },
                ),
                (
                    "aesenclast",
                    |v, a, b| v.aesenclast(a, b),
                    |a, b| unsafe { _mm_aesenclast_si128(a, b) },
                ),
                (
                    "aesdec",
                    |v, a, b| v.aesdec(a, b),
                    |a, b| unsafe { _mm_aesdec_si128(a, b) },
                ),
                (
                    "aesdeclast",
                    |v, a, b| v.aesdeclast(a, b),
                    |a, b| unsafe { _mm_aesdeclast_si128(a, b) },
                ),
                (
                    "shuffle_bytes",
                    |v, a, b| v.shuffle_bytes(a, b),
                    |a, b| unsafe { _mm_shuffle_epi8(a, b) },
                ),
                (
                    "shuffle32::<0x4e>",
                    |v, a, _b| v.shuffle32::<0x4e>(a),
                    |a, _b| unsafe { _mm_shuffle_epi32::<0x4e>(a) },
                ),
                (
                    "unpacklo64",
                    |v, a, b| v.unpacklo64(a, b),
                    |a, b| unsafe { _mm_unpacklo_epi64(a, b) },
                ),
                (
                    "unpackhi64",
                    |v, a, b| v.unpackhi64(a, b),
                    |a, b| unsafe { _mm_unpackhi_epi64(a, b) },
                ),
                (
                    "alignr::<8>",
                    |v, a, b| v.alignr::<8>(a, b),
                    |a, b| unsafe { _mm_alignr_epi8::<8>(a, b) },
                ),
                (
                    "add32",
                    |v, a, b| v.add32(a, b),
                    |a, b| unsafe { _mm_add_epi32(a, b) },
                ),
                (
                    "add64",
                    |v, a, b| v.add64(a, b),
                    |a, b| unsafe { _mm_add_epi64(a, b) },
                ),
                (
                    "sub64",
                    |v, a, b| v.sub64(a, b),
                    |a, b| unsafe { _mm_sub_epi64(a, b) },
                ),
                (
                    "bslli::<3>",
                    |v, a, _b| v.bslli::<3>(a),
                    |a, _b| unsafe { _mm_bslli_si128::<3>(a) },
                ),
                (
                    "bsrli::<15>",
                    |v, a, _b| v.bsrli::<15>(a),
                    |a, _b| unsafe { _mm_bsrli_si128::<15>(a) },
                ),
                (
                    "slli64::<5>",
                    |v, a, _b| v.slli64::<5>(a),
                    |a, _b| unsafe { _mm_slli_epi64::<5>(a) },
                ),
                (
                    "srli64::<59>",
                    |v, a, _b| v.srli64::<59>(a),
                    |a, _b| unsafe { _mm_srli_epi64::<59>(a) },
                ),
                (
                    "clmul::<0x00>",
                    |v, a, b| v.clmul::<0x00>(a, b),
                    |a, b| unsafe { _mm_clmulepi64_si128::<0x00>(a, b) },
                ),
                (
                    "clmul::<0x11>",
                    |v, a, b| v.clmul::<0x11>(a, b),
                    |a, b| unsafe { _mm_clmulepi64_si128::<0x11>(a, b) },
                ),
                (
                    "clmul::<0x01>",
                    |v, a, b| v.clmul::<0x01>(a, b),
                    |a, b| unsafe { _mm_clmulepi64_si128::<0x01>(a, b) },
                ),
                (
                    "clmul::<0x10>",
                    |v, a, b| v.clmul::<0x10>(a, b),
                    |a, b| unsafe { _mm_clmulepi64_si128::<0x10>(a, b) },
                ),
            ];
            for (what, wide, narrow) in cases {
                lanewise(v, wide(v, a, b), a, b, narrow, what);
            }
            assert_eq!(bytes(v, v.xor3(a, b, c)), bytes(v, v.xor(v.xor(a, b), c)));
            assert_eq!(bytes(v, v.round(false, a, b)), bytes(v, v.aesenc(a, b)));
            assert_eq!(bytes(v, v.round(true, a, b)), bytes(v, v.aesdec(a, b)));
            assert_eq!(bytes(v, v.last(false, a, b)), bytes(v, v.aesenclast(a, b)));
            assert_eq!(bytes(v, v.last(true, a, b)), bytes(v, v.aesdeclast(a, b)));
            // Shift counts 0..=70 per qword, some past 63.
            let n = v.and(b, v.set_u64x2(0x7f, 0x3f));
            let sllv = |x, s| per_qword(x, s, u64::checked_shl);
            let srlv = |x, s| per_qword(x, s, u64::checked_shr);
            lanewise(v, v.sllv64(a, n), a, n, sllv, "sllv64");
            lanewise(v, v.srlv64(a, n), a, n, srlv, "srlv64");

            // Lane moves.
            let la = lanes(v, a);
            assert_eq!(bits(v.low_block(a)), bits(la[0]));
            for (i, l) in la.iter().enumerate() {
                assert_eq!(bits(v.block(a, i)), bits(*l));
            }
            let x = la.iter().fold(0, |acc, l| acc ^ bits(*l));
            assert_eq!(bits(v.xor_lanes(a)), x);
            let s = lanes(v, v.shift_in(a, b));
            let lb = lanes(v, b);
            assert_eq!(bits(s[0]), bits(lb[V::BLOCKS - 1]));
            for i in 1..V::BLOCKS {
                assert_eq!(bits(s[i]), bits(la[i - 1]));
            }
            assert_eq!(bytes(v, v.load_lanes(&la)), bytes(v, a));
            let last = la[V::BLOCKS - 1];
            for l in lanes(v, v.broadcast(last)) {
                assert_eq!(bits(l), bits(last));
            }
            for (i, l) in lanes(v, v.zext(last)).iter().enumerate() {
                assert_eq!(bits(*l), if i == 0 { bits(last) } else { 0 });
            }
            let mut keys = [unsafe { _mm_setzero_si128() }; 15];
            for (i, k) in keys.iter_mut().enumerate() {
                *k = unsafe { _mm_set_epi64x(i as i64, 7) };
            }
            let rk = v.broadcast_keys::<10>(&keys);
            for (i, k) in rk.iter().enumerate() {
                let want = if i <= 10 { bits(keys[i]) } else { 0 };
                assert!(lanes(v, *k).iter().all(|l| bits(*l) == want));
            }
            for l in lanes(v, v.set_u64x2(5, 9)) {
                assert_eq!(bits(l), (5 << 64) | 9);
            }
            for (i, l) in lanes(v, v.lane_index()).iter().enumerate() {
                assert_eq!(bits(*l), i as u128);
            }
            assert!(bytes(v, v.zero()).iter().all(|&b| b == 0));
            let mut regs = [a, b, c, a, b, c, a, b, c];
            let before: Vec<_> = regs.iter().map(|r| bytes(v, *r)).collect();
            v.order(&mut regs);
            let mut four = [a, b, c, a];
            v.order(&mut four);
            assert_eq!(
                regs.iter().map(|r| bytes(v, *r)).collect::<Vec<_>>(),
                before
            );
            assert_eq!(bytes(v, four[3]), bytes(v, a));
        }

        // Partial loads and stores touch only their bytes.
        let src: Vec<u8> = (1..=V::BYTES as u8).collect();
        for len in 0..=V::BYTES {
            // SAFETY: `src` has `BYTES` >= `len` readable bytes.
            let x = unsafe { v.load_bytes(src.as_ptr(), len) };
            let got = bytes(v, x);
            assert_eq!(&got[..len], &src[..len]);
            assert!(got[len..].iter().all(|&b| b == 0));
            let mut dst = vec![0xeeu8; V::BYTES + 16];
            // SAFETY: `dst` has more than `len` writable bytes.
            unsafe { v.store_bytes(dst.as_mut_ptr(), random(v, 3), len) };
            assert_eq!(&dst[..len], &bytes(v, random(v, 3))[..len]);
            assert!(dst[len..].iter().all(|&b| b == 0xee));
        }
        for blocks in 1..=V::BLOCKS {
            // SAFETY: `src` has `BYTES` >= `16 * blocks` readable bytes.
            let x = unsafe { v.load_blocks(src.as_ptr(), blocks) };
            let got = bytes(v, x);
            assert_eq!(&got[..16 * blocks], &src[..16 * blocks]);
            assert!(got[16 * blocks..].iter().all(|&b| b == 0));
            let mut dst = vec![0xeeu8; V::BYTES + 16];
            // SAFETY: `dst` has more than `16 * blocks` writable bytes.
            unsafe { v.store_blocks(dst.as_mut_ptr(), x, blocks) };
            assert_eq!(&dst[..16 * blocks], &src[..16 * blocks]);
            assert!(dst[16 * blocks..].iter().all(|&b| b == 0xee));
        }
    }

    #[test]
    fn xmm_methods_match_the_128_bit_instructions() {
        match cpu::features().aesni {
            Some(t) => check(t),
            None => eprintln!("skipped: no AES-NI on this CPU"),
        }
    }

    #[test]
    fn ymm_methods_match_the_128_bit_instructions() {
        match cpu::features().vaes256 {
            Some(t) => check(t),
            None => eprintln!("skipped: no VAES/AVX2 on this CPU"),
        }
    }

    #[test]
    fn zmm_methods_match_the_128_bit_instructions() {
        match cpu::features().vaes512 {
            Some(t) => check(t),
            None => eprintln!("skipped: no VAES/AVX-512 on this CPU"),
        }
    }
}
