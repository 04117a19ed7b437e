// Shared definitions for every aesx kernel.
//
// The kernels are compiled by NVRTC at run time (no CUDA headers, so no
// <stdint.h>). The same sources also compile as plain C++ on the host with
// AESX_EMULATE defined: the test `tests/emulated_kernels.rs` runs every
// kernel thread by thread on the CPU, which checks the bitsliced circuits,
// the counter and tweak arithmetic and the GHASH tree without a GPU.

typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef AESX_EMULATE
#define AESX_DEV __device__ __forceinline__
#define AESX_UNROLL _Pragma("unroll")
// A rarely taken helper kept out of line, so that unrolled code stays small.
#define AESX_DEV_COLD __device__ __noinline__
// Bits of a 32-bit word reversed (bit 0 <-> bit 31).
AESX_DEV u32 aesx_brev(u32 x) { return __brev(x); }
// Bytes of a 32-bit word reversed.
AESX_DEV u32 aesx_bswap(u32 x) { return __byte_perm(x, 0, 0x0123); }
// Byte i of the result is byte (s >> 4i) & 7 of the pair, a being bytes
// 0-3 and b bytes 4-7 (one PRMT instruction).
AESX_DEV u32 aesx_prmt(u32 a, u32 b, u32 s) { return __byte_perm(a, b, s); }
// a ^ b ^ c as one LOP3. Written as PTX so that NVVM does not regroup the
// XOR terms (it cancels and re-associates them, which loses shared
// subterms); ptxas still schedules it freely.
AESX_DEV u32 aesx_xor3(u32 a, u32 b, u32 c) {
    u32 d;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
// Any Boolean function of three words as one LOP3: F is its truth table,
// F = f(0xf0, 0xcc, 0xaa) (the generated S-boxes of sbox_lop3.cuh).
template <u32 F> AESX_DEV u32 aesx_lop3(u32 a, u32 b, u32 c) {
    u32 d;
    asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(F));
    return d;
}
// The bits of a where m is set, of b elsewhere, as one LOP3.
AESX_DEV u32 aesx_select(u32 a, u32 b, u32 m) {
    u32 d;
    asm("lop3.b32 %0, %1, %2, %3, 0xe4;" : "=r"(d) : "r"(a), "r"(b), "r"(m));
    return d;
}
// The full 64-bit product of two 32-bit words, as one IMAD.WIDE.U32 on the
// FMA pipe. Written as PTX because NVVM widens `(u64)a * b` of a hoisted
// operand into a 64 x 64 multiply whose high-word cross terms (known zero)
// cost an integer add on the ALU pipe per product.
AESX_DEV u64 aesx_mul_wide(u32 a, u32 b) {
    u64 d;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(d) : "r"(a), "r"(b));
    return d;
}
// Read-only load of one 16-byte block through the non-coherent cache.
AESX_DEV uint4 aesx_load(const uint4 *p) { return __ldg(p); }
// Four round-key masks; every thread of a launch reads the same address.
AESX_DEV uint4 aesx_load_rk4(const uint4 *p) { return __ldg(p); }
#endif

// Number of AES blocks one thread carries in its 32-bit bitslice registers.
#define AESX_LANES 32
// Blocks handled by one warp: lane l takes blocks l, l+32, l+64, ... so that
// each of the 32 loads of a warp reads 512 contiguous bytes.
#define AESX_WARP_BLOCKS (32 * AESX_LANES)
