// NOT CONSTANT-TIME. A classic T-table AES-CTR kernel, compiled only by the
// benchmark (aesx_cuda::bench::ttable_comparison) to show what the
// bitsliced default costs. Its table lookups are indexed by secret state
// bytes, which leaks the key through cache and shared-memory timing; it is
// never used to protect data. Built from prelude.cuh and gf128.cuh only.

// Table setup, one thread per byte value: sbox[x] and
// te[x] = (2 s, s, s, 3 s) as a little-endian word of the column bytes.
// The S-box is computed here (inversion as x^254) so no table is shipped.
AESX_DEV u32 aesx_tt_xtime(u32 a) { return ((a << 1) ^ ((a >> 7) * 0x1b)) & 0xff; }

AESX_DEV u32 aesx_tt_mul(u32 a, u32 b) {
    u32 p = 0;
    for (int i = 0; i < 8; i++) {
        if (b & 1) p ^= a;
        a = aesx_tt_xtime(a);
        b >>= 1;
    }
    return p;
}

extern "C" __global__ void aesx_tt_setup(u32 *te, u32 *sbox) {
    const u32 x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= 256) return;
    u32 inv = 1, base = x;
    for (int e = 254; e != 0; e >>= 1) {
        if (e & 1) inv = aesx_tt_mul(inv, base);
        base = aesx_tt_mul(base, base);
    }
    if (x == 0) inv = 0;
    u32 s = inv;
    for (int r = 1; r < 5; r++) s ^= ((inv << r) | (inv >> (8 - r))) & 0xff;
    s ^= 0x63;
    sbox[x] = s;
    const u32 s2 = aesx_tt_xtime(s);
    te[x] = s2 | (s << 8) | (s << 16) | ((s2 ^ s) << 24);
}

AESX_DEV u32 aesx_tt_rotl8(u32 w) { return (w << 8) | (w >> 24); }

// One column of a full round before its round key: row k taken from the
// old column a, b, c, d for k = 0, 1, 2, 3 (a is the column itself,
// b the next one: ShiftRows), through the table rotated by k bytes.
AESX_DEV u32 aesx_tt_column(const u32 *te, u32 a, u32 b, u32 c, u32 d) {
    return te[a & 0xff] ^ aesx_tt_rotl8(te[(b >> 8) & 0xff]) ^
           aesx_tt_rotl8(aesx_tt_rotl8(te[(c >> 16) & 0xff])) ^
           aesx_tt_rotl8(aesx_tt_rotl8(aesx_tt_rotl8(te[d >> 24])));
}

// CTR over nbytes (any length) from the 128-bit big-endian counter
// ctr_hi:ctr_lo; one thread per block; rk as in aes_bitsliced.cu.
extern "C" __global__ void aesx_tt_ctr(const unsigned char *in, unsigned char *out, u64 nbytes,
                                       const u32 *rk, int nr, u64 ctr_hi, u64 ctr_lo,
                                       const u32 *te, const u32 *sbox) {
    const u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (nbytes + 15) / 16) return;
    const u64 lo = ctr_lo + g;
    const u64 hi = ctr_hi + (lo < ctr_lo ? 1 : 0);
    // Column c is the little-endian word of state bytes 4c .. 4c+3.
    u32 s0 = aesx_bswap((u32)(hi >> 32)) ^ rk[0];
    u32 s1 = aesx_bswap((u32)hi) ^ rk[1];
    u32 s2 = aesx_bswap((u32)(lo >> 32)) ^ rk[2];
    u32 s3 = aesx_bswap((u32)lo) ^ rk[3];
    for (int r = 1; r < nr; r++) {
        // New column c takes row r from old column c + r (ShiftRows).
        const u32 t0 = aesx_tt_column(te, s0, s1, s2, s3);
        const u32 t1 = aesx_tt_column(te, s1, s2, s3, s0);
        const u32 t2 = aesx_tt_column(te, s2, s3, s0, s1);
        const u32 t3 = aesx_tt_column(te, s3, s0, s1, s2);
        s0 = t0 ^ rk[4 * r];
        s1 = t1 ^ rk[4 * r + 1];
        s2 = t2 ^ rk[4 * r + 2];
        s3 = t3 ^ rk[4 * r + 3];
    }
    u32 k[4];
    const u32 c[4] = {s0, s1, s2, s3};
    AESX_UNROLL
    for (int col = 0; col < 4; col++) {
        k[col] = (sbox[c[col] & 0xff] | (sbox[(c[(col + 1) & 3] >> 8) & 0xff] << 8) |
                  (sbox[(c[(col + 2) & 3] >> 16) & 0xff] << 16) |
                  (sbox[c[(col + 3) & 3] >> 24] << 24)) ^
                 rk[4 * nr + col];
    }
    const u64 nfull = nbytes / 16;
    if (g < nfull) {
        const uint4 v = ((const uint4 *)in)[g];
        uint4 o;
        o.x = v.x ^ k[0];
        o.y = v.y ^ k[1];
        o.z = v.z ^ k[2];
        o.w = v.w ^ k[3];
        ((uint4 *)out)[g] = o;
    } else {
        AESX_UNROLL
        for (u32 i = 0; i < 15; i++) {
            if (i < (u32)(nbytes % 16)) {
                out[16 * g + i] = in[16 * g + i] ^ (unsigned char)(k[i / 4] >> (8 * (i % 4)));
            }
        }
    }
}
