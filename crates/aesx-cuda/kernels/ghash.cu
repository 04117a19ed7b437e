// GHASH on the GPU as a tree of polynomial evaluations.
//
// For elements X_0 .. X_{m-1} and a base B, P(X; B) = sum X_i B^(m-1-i), so
// that GHASH_H(X) = P(X; H) * H. Leading zero elements do not change P, so
// the host pads the sequence in front to m = RUN * T elements ("pad" virtual
// zeros). Thread t takes the strided elements t, t + T, t + 2T, ... (so a
// warp's loads are contiguous) and folds them with Horner's rule in base
// B^T: E_t = sum_q X_{qT+t} (B^T)^(RUN-1-q). Since
//   P(X; B) = sum_t B^(T-1-t) E_t = P(E_0 .. E_{T-1}; B),
// the host launches the same kernel on the E_t (again with base B) until few
// enough remain, and finishes on the CPU (src/gcm.rs). One field
// multiplication per element, all constant-time (gf128.cuh); branches
// depend on indices only.

#define AESX_GHASH_RUN 32

// Element `i` of the input. In GCM order (level 1: ciphertext, the last
// block zero-padded to 16 bytes) the block is bit-reflected into the normal
// representation; otherwise it already is one (a previous level's output).
// The partial last block, zero-padded (at most once per message, so out of
// line: the element loops keep only the whole-block load). Constant word
// indices after unrolling keep it in registers.
AESX_DEV_COLD uint4 aesx_ghash_partial(const unsigned char *in, u64 nbytes, u64 i) {
    const u32 rem = (u32)(nbytes - 16 * i);
    u32 w[4] = {0, 0, 0, 0};
    AESX_UNROLL
    for (u32 k = 0; k < 15; k++) {
        if (k < rem) w[k / 4] |= (u32)in[16 * i + k] << (8 * (k % 4));
    }
    uint4 v;
    v.x = w[0];
    v.y = w[1];
    v.z = w[2];
    v.w = w[3];
    return v;
}

AESX_DEV aesx_gf aesx_ghash_element(const unsigned char *in, u64 nbytes, int gcm_order, u64 i) {
    uint4 v;
    if (16 * i + 16 <= nbytes) {
        v = ((const uint4 *)in)[i];
    } else {
        v = aesx_ghash_partial(in, nbytes, i);
    }
    if (gcm_order) {
        // GCM numbers bits from the most significant bit of byte 0 (x^0):
        // reversing the bits of each byte turns it into the normal form.
        v.x = aesx_brev(aesx_bswap(v.x));
        v.y = aesx_brev(aesx_bswap(v.y));
        v.z = aesx_brev(aesx_bswap(v.z));
        v.w = aesx_brev(aesx_bswap(v.w));
    }
    return aesx_gf_from4(v);
}

// Run t of one message of nbytes bytes at `in` (the loop of
// aesx_ghash_runs below, shared with aesx_ghash_msgs): the sum over q < RUN
// of X_{q nruns + t} Bt^(RUN-1-q), virtual elements v < pad being zero, as
// the uint4 stored in device memory.
AESX_DEV uint4 aesx_ghash_run(const unsigned char *in, u64 nbytes, int gcm_order, u64 nruns,
                              u64 t, u64 pad, u64 base_lo, u64 base_hi) {
    aesx_gf b;
    b.lo = base_lo;
    b.hi = base_hi;
    aesx_gf acc;
    acc.lo = 0;
    acc.hi = 0;
    for (u32 q = 0; q < AESX_GHASH_RUN; q++) {
        const u64 v = (u64)q * nruns + t;
        if (v < pad) continue; // a leading zero: acc is still zero
        const aesx_gf e = aesx_ghash_element(in, nbytes, gcm_order, v - pad);
        acc = aesx_gf_mul(acc, b);
        acc.lo ^= e.lo;
        acc.hi ^= e.hi;
    }
    return aesx_gf_to4(acc);
}

// --- The same runs with a table of powers ----------------------------------
//
// Horner's rule needs each product reduced before the next multiplication.
// Writing the run instead as E_t = sum_q X_q P_q with P_q = Bt^(RUN-1-q),
// the same 32 powers for every thread of a launch, the products are
// independent: they are summed unmasked and unreduced (aesx_gf_mul_acc) and
// joined once per run, which leaves about 70% of Horner's integer-pipe
// instructions per element. The host computes the powers (a kernel
// parameter, 512 bytes); each block splits them into their Karatsuba
// operand words and bit classes once, in shared memory, where every thread
// reads the same words (broadcasts).

struct aesx_ghash_pows {
    uint4 p[AESX_GHASH_RUN]; // p[q] = Bt^(RUN-1-q), as aesx_gf_to4 stores it
};

// Operand words of one power: 9 words x 4 classes.
#define AESX_GHASH_POW_WORDS 36

// Fills tab[q * 36 ..] with the operand words of pows.p[q], the entries
// first, first + step, ... (one block's threads share the work on the
// device; the emulation's single thread takes every entry).
AESX_DEV void aesx_ghash_fill(u32 *tab, const aesx_ghash_pows &pows, u32 first, u32 step) {
    for (u32 q = first; q < AESX_GHASH_RUN; q += step) {
        aesx_gf_operands(aesx_gf_from4(pows.p[q]), tab + AESX_GHASH_POW_WORDS * q);
    }
}

// Run t (as aesx_ghash_run) from the operand table of the powers.
AESX_DEV uint4 aesx_ghash_run_pows(const unsigned char *in, u64 nbytes, int gcm_order, u64 nruns,
                                   u64 t, u64 pad, const u32 *tab) {
    u64 acc[AESX_GHASH_POW_WORDS];
    AESX_UNROLL
    for (int i = 0; i < AESX_GHASH_POW_WORDS; i++) acc[i] = 0;
    AESX_NOUNROLL
    for (u32 q = 0; q < AESX_GHASH_RUN; q++) {
        const u64 v = (u64)q * nruns + t;
        if (v < pad) continue; // a leading zero adds nothing
        const aesx_gf e = aesx_ghash_element(in, nbytes, gcm_order, v - pad);
        u32 a[AESX_GHASH_POW_WORDS], b[AESX_GHASH_POW_WORDS];
        aesx_gf_operands(e, a);
        const uint4 *row = (const uint4 *)(tab + AESX_GHASH_POW_WORDS * q);
        AESX_UNROLL
        for (int i = 0; i < 9; i++) {
            const uint4 w = row[i];
            b[4 * i] = w.x;
            b[4 * i + 1] = w.y;
            b[4 * i + 2] = w.z;
            b[4 * i + 3] = w.w;
        }
        aesx_gf_mul_acc(acc, a, b);
    }
    return aesx_gf_to4(aesx_gf_join(acc));
}

#ifdef AESX_EMULATE
#define AESX_GHASH_TABLE(tab) u32 tab[AESX_GHASH_RUN * AESX_GHASH_POW_WORDS]
#define AESX_GHASH_FILL(tab, pows) aesx_ghash_fill(tab, pows, 0, 1)
#else
#define AESX_GHASH_TABLE(tab) __shared__ __align__(16) u32 tab[AESX_GHASH_RUN * AESX_GHASH_POW_WORDS]
#define AESX_GHASH_FILL(tab, pows)                                                          \
    do {                                                                                 \
        aesx_ghash_fill(tab, pows, threadIdx.x, blockDim.x);                             \
        __syncthreads();                                                                 \
    } while (0)
#endif

// aesx_ghash_runs (below) with the powers of the base instead of the base.
extern "C" __global__ void aesx_ghash_runs_pows(const unsigned char *in, u64 nbytes,
                                                int gcm_order, uint4 *out, u64 nruns, u64 pad,
                                                const aesx_ghash_pows pows) {
    AESX_GHASH_TABLE(tab);
    AESX_GHASH_FILL(tab, pows);
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nruns) return;
    out[t] = aesx_ghash_run_pows(in, nbytes, gcm_order, nruns, t, pad, tab);
}

// aesx_ghash_msgs (below) with the powers of the base instead of the base.
extern "C" __global__ void aesx_ghash_msgs_pows(const unsigned char *in, u64 nbytes, u64 stride,
                                                int gcm_order, uint4 *out, u64 nmsgs, u64 nruns,
                                                const aesx_ghash_pows pows) {
    AESX_GHASH_TABLE(tab);
    AESX_GHASH_FILL(tab, pows);
    const u64 id = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nmsgs * nruns) return;
    const u64 m = id / nruns;
    const u64 t = id - m * nruns;
    const u64 start = m * stride;
    const u64 left = nbytes > start ? nbytes - start : 0;
    const u64 len = left < stride ? left : stride;
    const u64 nel = (len + 15) / 16;
    const u64 pad = AESX_GHASH_RUN * nruns - nel;
    out[id] = aesx_ghash_run_pows(in + start, len, gcm_order, nruns, t, pad, tab);
}

// out[t] = sum_q X_{q nruns + t} Bt^(RUN-1-q) for t < nruns, where virtual
// element v is zero for v < pad and input element v - pad after, and
// Bt = B^nruns is passed as base.
extern "C" __global__ void aesx_ghash_runs(const unsigned char *in, u64 nbytes, int gcm_order,
                                           uint4 *out, u64 nruns, u64 pad, u64 base_lo,
                                           u64 base_hi) {
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nruns) return;
    out[t] = aesx_ghash_run(in, nbytes, gcm_order, nruns, t, pad, base_lo, base_hi);
}

// The same first level for many messages at once (GCM over the chunks of the
// file format): message m is bytes [m * stride, min((m + 1) * stride, nbytes))
// of `in` (only the last may be shorter, possibly empty), and has nruns runs
// of its own, padded in front to RUN * nruns elements (the host guarantees
// stride / 16 <= RUN * nruns). Thread m * nruns + t writes out[m * nruns + t]
// as aesx_ghash_runs does for the one message, so a second launch with
// nruns = 1 over these outputs (stride 16 * nruns) leaves P(C_m; H) per
// message.
extern "C" __global__ void aesx_ghash_msgs(const unsigned char *in, u64 nbytes, u64 stride,
                                           int gcm_order, uint4 *out, u64 nmsgs, u64 nruns,
                                           u64 base_lo, u64 base_hi) {
    const u64 id = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nmsgs * nruns) return;
    const u64 m = id / nruns;
    const u64 t = id - m * nruns;
    const u64 start = m * stride;
    const u64 left = nbytes > start ? nbytes - start : 0;
    const u64 len = left < stride ? left : stride;
    const u64 nel = (len + 15) / 16;
    const u64 pad = AESX_GHASH_RUN * nruns - nel;
    out[id] = aesx_ghash_run(in + start, len, gcm_order, nruns, t, pad, base_lo, base_hi);
}
