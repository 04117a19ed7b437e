// GF(2^128) arithmetic for XTS tweaks and GHASH, constant-time.
//
// Elements are in the "normal" representation: bit i of the 128-bit integer
// (lo | hi << 64) is the coefficient of x^i, and the field is
// GF(2)[x] / (x^128 + x^7 + x^2 + x + 1). An XTS tweak read as a
// little-endian 128-bit integer is already in this form (IEEE 1619
// multiplies by alpha with a left shift and 0x87). A GCM block is the
// bit-reflection of it; ghash.cu converts on load.
//
// No table and no branch depends on an element: products use integer
// multiplications of operands with 3-bit holes between their bits, which
// cannot carry into the bits that are kept (at most 8 partial products meet
// at any kept position, and 8 < 16), so they equal carry-less products.

struct aesx_gf {
    u64 lo;
    u64 hi;
};

// An element as the uint4 of its 16 little-endian bytes in memory, and back.
AESX_DEV uint4 aesx_gf_to4(aesx_gf t) {
    uint4 r;
    r.x = (u32)t.lo;
    r.y = (u32)(t.lo >> 32);
    r.z = (u32)t.hi;
    r.w = (u32)(t.hi >> 32);
    return r;
}

AESX_DEV aesx_gf aesx_gf_from4(uint4 v) {
    aesx_gf t;
    t.lo = (u64)v.x | ((u64)v.y << 32);
    t.hi = (u64)v.z | ((u64)v.w << 32);
    return t;
}

// T * x^k for a public shift 1 <= k <= 32.
AESX_DEV aesx_gf aesx_gf_mulx_k(aesx_gf t, u32 k) {
    // Bits pushed past x^127 fold back as x^128 = x^7 + x^2 + x + 1; they
    // are fewer than 33, so the folded value stays below x^40 and needs no
    // second fold.
    u64 c = t.hi >> (64 - k);
    aesx_gf r;
    r.hi = (t.hi << k) | (t.lo >> (64 - k));
    r.lo = (t.lo << k) ^ c ^ (c << 1) ^ (c << 2) ^ (c << 7);
    return r;
}

// T * x^j for a public j (the position of a block inside its sector).
AESX_DEV aesx_gf aesx_gf_mulx_pow(aesx_gf t, u64 j) {
    while (j >= 32) {
        t = aesx_gf_mulx_k(t, 32);
        j -= 32;
    }
    if (j != 0) {
        t = aesx_gf_mulx_k(t, (u32)j);
    }
    return t;
}

// Carry-less 32 x 32 -> 64 bit product by integer multiplication with holes.
AESX_DEV u64 aesx_clmul32(u32 a, u32 b) {
    u32 a0 = a & 0x11111111u, a1 = a & 0x22222222u;
    u32 a2 = a & 0x44444444u, a3 = a & 0x88888888u;
    u32 b0 = b & 0x11111111u, b1 = b & 0x22222222u;
    u32 b2 = b & 0x44444444u, b3 = b & 0x88888888u;
    // Bit class k (positions = k mod 4) of the product collects a_i * b_j
    // with i + j = k mod 4.
    u64 z0 = aesx_mul_wide(a0, b0) ^ aesx_mul_wide(a1, b3) ^ aesx_mul_wide(a2, b2) ^ aesx_mul_wide(a3, b1);
    u64 z1 = aesx_mul_wide(a0, b1) ^ aesx_mul_wide(a1, b0) ^ aesx_mul_wide(a2, b3) ^ aesx_mul_wide(a3, b2);
    u64 z2 = aesx_mul_wide(a0, b2) ^ aesx_mul_wide(a1, b1) ^ aesx_mul_wide(a2, b0) ^ aesx_mul_wide(a3, b3);
    u64 z3 = aesx_mul_wide(a0, b3) ^ aesx_mul_wide(a1, b2) ^ aesx_mul_wide(a2, b1) ^ aesx_mul_wide(a3, b0);
    return (z0 & 0x1111111111111111ull) | (z1 & 0x2222222222222222ull) |
           (z2 & 0x4444444444444444ull) | (z3 & 0x8888888888888888ull);
}

// Carry-less 64 x 64 -> 128 bit product (Karatsuba over 32-bit halves).
AESX_DEV aesx_gf aesx_clmul64(u64 a, u64 b) {
    u32 al = (u32)a, ah = (u32)(a >> 32), bl = (u32)b, bh = (u32)(b >> 32);
    u64 lo = aesx_clmul32(al, bl);
    u64 hi = aesx_clmul32(ah, bh);
    u64 mid = aesx_clmul32(al ^ ah, bl ^ bh) ^ lo ^ hi;
    aesx_gf r;
    r.lo = lo ^ (mid << 32);
    r.hi = hi ^ (mid >> 32);
    return r;
}

// a * b in GF(2^128).
AESX_DEV aesx_gf aesx_gf_mul(aesx_gf a, aesx_gf b) {
    // 256-bit carry-less product z3:z2:z1:z0 by Karatsuba over 64-bit halves.
    aesx_gf l = aesx_clmul64(a.lo, b.lo);
    aesx_gf h = aesx_clmul64(a.hi, b.hi);
    aesx_gf m = aesx_clmul64(a.lo ^ a.hi, b.lo ^ b.hi);
    m.lo ^= l.lo ^ h.lo;
    m.hi ^= l.hi ^ h.hi;
    u64 z0 = l.lo, z1 = l.hi ^ m.lo, z2 = h.lo ^ m.hi, z3 = h.hi;
    // Fold the high half: (z3:z2) * x^128 = (z3:z2) * (x^7 + x^2 + x + 1).
    // The shifted-out top bits (below x^7) fold a second time.
    u64 o = (z3 >> 63) ^ (z3 >> 62) ^ (z3 >> 57);
    aesx_gf r;
    r.lo = z0 ^ z2 ^ (z2 << 1) ^ (z2 << 2) ^ (z2 << 7) ^ o ^ (o << 1) ^ (o << 2) ^ (o << 7);
    r.hi = z1 ^ z3 ^ (z3 << 1) ^ (z2 >> 63) ^ (z3 << 2) ^ (z2 >> 62) ^ (z3 << 7) ^ (z2 >> 57);
    return r;
}

// --- Products accumulated before they are masked ---------------------------
//
// A hole-spaced product leaves garbage (carries) in the holes, which the
// masks of aesx_clmul32 clear. Masking distributes over XOR, and so does
// Karatsuba's recombination, so a sum of many products can keep, for each
// of the nine 32 x 32 Karatsuba products of a 128 x 128 multiplication and
// each of the four bit classes, one unmasked 64-bit accumulator, and mask,
// recombine and reduce once for the whole sum (aesx_gf_join). Per element
// that leaves the 16 multiplications of each of the nine products and the
// XORs that collect them.

// The nine Karatsuba operand words of x (lo.lo, lo.hi, their sum, hi.lo,
// hi.hi, their sum, then the same three of lo ^ hi), split into the four
// bit classes: o[4 i + k] = word i & (0x11111111 << k).
AESX_DEV void aesx_gf_operands(aesx_gf x, u32 *o) {
    const u32 w0 = (u32)x.lo, w1 = (u32)(x.lo >> 32), w2 = (u32)x.hi, w3 = (u32)(x.hi >> 32);
    const u32 s3 = aesx_xor3(w0, w1, w2);
    AESX_UNROLL
    for (int k = 0; k < 4; k++) {
        const u32 m = 0x11111111u << k;
        o[k] = w0 & m;
        o[4 + k] = w1 & m;
        o[8 + k] = (w0 ^ w1) & m;
        o[12 + k] = w2 & m;
        o[16 + k] = w3 & m;
        o[20 + k] = (w2 ^ w3) & m;
        o[24 + k] = (w0 ^ w2) & m;
        o[28 + k] = (w1 ^ w3) & m;
        o[32 + k] = (s3 ^ w3) & m;
    }
}

// acc[4 i + k] ^= the class-k products of operand word i of a and of b
// (both as aesx_gf_operands makes them), unmasked.
AESX_DEV void aesx_gf_mul_acc(u64 *acc, const u32 *a, const u32 *b) {
    AESX_UNROLL
    for (int i = 0; i < 9; i++) {
        const u32 *x = a + 4 * i, *y = b + 4 * i;
        AESX_UNROLL
        for (int k = 0; k < 4; k++) {
            // Class k collects x_j * y_(k - j mod 4).
            const u64 p0 = aesx_mul_wide(x[0], y[k & 3]);
            const u64 p1 = aesx_mul_wide(x[1], y[(k + 3) & 3]);
            const u64 p2 = aesx_mul_wide(x[2], y[(k + 2) & 3]);
            const u64 p3 = aesx_mul_wide(x[3], y[(k + 1) & 3]);
            u64 *z = acc + 4 * i + k;
            const u32 lo = aesx_xor3(aesx_xor3((u32)*z, (u32)p0, (u32)p1), (u32)p2, (u32)p3);
            const u32 hi = aesx_xor3(aesx_xor3((u32)(*z >> 32), (u32)(p0 >> 32), (u32)(p1 >> 32)),
                                     (u32)(p2 >> 32), (u32)(p3 >> 32));
            *z = (u64)lo | ((u64)hi << 32);
        }
    }
}

// The field element that the accumulators of aesx_gf_mul_acc stand for:
// masked, recombined (Karatsuba at both levels) and reduced.
AESX_DEV aesx_gf aesx_gf_join(const u64 *acc) {
    u64 p[9];
    AESX_UNROLL
    for (int i = 0; i < 9; i++) {
        const u64 *z = acc + 4 * i;
        p[i] = (z[0] & 0x1111111111111111ull) | (z[1] & 0x2222222222222222ull) |
               (z[2] & 0x4444444444444444ull) | (z[3] & 0x8888888888888888ull);
    }
    // 64 x 64 products from their three 32 x 32 ones.
    aesx_gf q[3];
    AESX_UNROLL
    for (int j = 0; j < 3; j++) {
        const u64 lo = p[3 * j], hi = p[3 * j + 1], mid = p[3 * j + 2] ^ lo ^ hi;
        q[j].lo = lo ^ (mid << 32);
        q[j].hi = hi ^ (mid >> 32);
    }
    aesx_gf l = q[0], h = q[1], m = q[2];
    m.lo ^= l.lo ^ h.lo;
    m.hi ^= l.hi ^ h.hi;
    const u64 z0 = l.lo, z1 = l.hi ^ m.lo, z2 = h.lo ^ m.hi, z3 = h.hi;
    const u64 o = (z3 >> 63) ^ (z3 >> 62) ^ (z3 >> 57);
    aesx_gf r;
    r.lo = z0 ^ z2 ^ (z2 << 1) ^ (z2 << 2) ^ (z2 << 7) ^ o ^ (o << 1) ^ (o << 2) ^ (o << 7);
    r.hi = z1 ^ z3 ^ (z3 << 1) ^ (z2 >> 63) ^ (z3 << 2) ^ (z2 >> 62) ^ (z3 << 7) ^ (z2 >> 57);
    return r;
}
