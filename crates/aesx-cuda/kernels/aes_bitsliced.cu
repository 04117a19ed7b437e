// Bitsliced, constant-time AES for NVIDIA GPUs.
//
// Each thread carries 32 blocks in 128 registers: register 8*i + b holds bit
// b (0 = least significant) of state byte i (FIPS 197 order, i = row + 4 *
// column) of all 32 blocks, one block per bit position. SubBytes is then a
// Boolean circuit evaluated on 32 blocks at once, ShiftRows is a renaming of
// registers and MixColumns a handful of XORs. No memory access and no branch
// depends on the key or the data; the only branches are on block indices and
// lengths, which are public. (A T-table kernel would index shared memory by
// secret bytes; its bank conflicts leak the key, as shown on GPUs.)
//
// Round keys are the FIPS 197 schedule, expanded on the host and stored in
// device memory already bitsliced: 128 masks per round (slice s of round r
// at rk[128 r + s], all zeros or all ones), so that AddRoundKey is one XOR
// per slice, folded into MixColumns, with no instruction spent on the key
// bits. The Nr + 1 encryption round keys are followed by the Nr + 1 of the
// equivalent inverse cipher (15 KiB in all for AES-256). Every thread of a
// launch reads the same words, so the 16-byte loads are broadcasts that stay
// in the L1 cache.

#ifdef AESX_EMULATE
#define AESX_NOUNROLL
#else
#define AESX_NOUNROLL _Pragma("unroll 1")
#endif

// --- S-box circuits --------------------------------------------------------

// The forward S-box as the 113-gate straight-line program of Boyar, Peralta
// and Calik (SLP_AES_113, from the Circuit Minimization Team's collection).
// s[b] is the slice of bit b; the program numbers bits from the most
// significant (U0 = bit 7) down.
AESX_DEV void aesx_sbox(u32 *s) {
    const u32 U0 = s[7], U1 = s[6], U2 = s[5], U3 = s[4];
    const u32 U4 = s[3], U5 = s[2], U6 = s[1], U7 = s[0];
    // Top linear layer.
    const u32 y14 = U3 ^ U5, y13 = U0 ^ U6, y9 = U0 ^ U3, y8 = U0 ^ U5;
    const u32 t0 = U1 ^ U2, y1 = t0 ^ U7, y4 = y1 ^ U3, y12 = y13 ^ y14;
    const u32 y2 = y1 ^ U0, y5 = y1 ^ U6, y3 = y5 ^ y8, t1 = U4 ^ y12;
    const u32 y15 = t1 ^ U5, y20 = t1 ^ U1, y6 = y15 ^ U7, y10 = y15 ^ t0;
    const u32 y11 = y20 ^ y9, y7 = U7 ^ y11, y17 = y10 ^ y11, y19 = y10 ^ y8;
    const u32 y16 = t0 ^ y11, y21 = y13 ^ y16, y18 = U0 ^ y16;
    // Shared non-linear middle: inversion in GF(2^4)^2.
    const u32 t2 = y12 & y15, t3 = y3 & y6, t4 = t3 ^ t2, t5 = y4 & U7;
    const u32 t6 = t5 ^ t2, t7 = y13 & y16, t8 = y5 & y1, t9 = t8 ^ t7;
    const u32 t10 = y2 & y7, t11 = t10 ^ t7, t12 = y9 & y11, t13 = y14 & y17;
    const u32 t14 = t13 ^ t12, t15 = y8 & y10, t16 = t15 ^ t12, t17 = t4 ^ y20;
    const u32 t18 = t6 ^ t16, t19 = t9 ^ t14, t20 = t11 ^ t16, t21 = t17 ^ t14;
    const u32 t22 = t18 ^ y19, t23 = t19 ^ y21, t24 = t20 ^ y18, t25 = t21 ^ t22;
    const u32 t26 = t21 & t23, t27 = t24 ^ t26, t28 = t25 & t27, t29 = t28 ^ t22;
    const u32 t30 = t23 ^ t24, t31 = t22 ^ t26, t32 = t31 & t30, t33 = t32 ^ t24;
    const u32 t34 = t23 ^ t33, t35 = t27 ^ t33, t36 = t24 & t35, t37 = t36 ^ t34;
    const u32 t38 = t27 ^ t36, t39 = t29 & t38, t40 = t25 ^ t39, t41 = t40 ^ t37;
    const u32 t42 = t29 ^ t33, t43 = t29 ^ t40, t44 = t33 ^ t37, t45 = t42 ^ t41;
    const u32 z0 = t44 & y15, z1 = t37 & y6, z2 = t33 & U7, z3 = t43 & y16;
    const u32 z4 = t40 & y1, z5 = t29 & y7, z6 = t42 & y11, z7 = t45 & y17;
    const u32 z8 = t41 & y10, z9 = t44 & y12, z10 = t37 & y3, z11 = t33 & y4;
    const u32 z12 = t43 & y13, z13 = t40 & y5, z14 = t29 & y2, z15 = t42 & y9;
    const u32 z16 = t45 & y14, z17 = t41 & y8;
    // Bottom linear layer, with the affine constant 0x63 as the NOTs.
    const u32 tc1 = z15 ^ z16, tc2 = z10 ^ tc1, tc3 = z9 ^ tc2, tc4 = z0 ^ z2;
    const u32 tc5 = z1 ^ z0, tc6 = z3 ^ z4, tc7 = z12 ^ tc4, tc8 = z7 ^ tc6;
    const u32 tc9 = z8 ^ tc7, tc10 = tc8 ^ tc9, tc11 = tc6 ^ tc5, tc12 = z3 ^ z5;
    const u32 tc13 = z13 ^ tc1, tc14 = tc4 ^ tc12, S3 = tc3 ^ tc11, tc16 = z6 ^ tc8;
    const u32 tc17 = z14 ^ tc10, tc18 = ~tc13 ^ tc14, S7 = z12 ^ tc18;
    const u32 tc20 = z15 ^ tc16, tc21 = tc2 ^ z11, S0 = tc3 ^ tc16;
    const u32 S6 = tc10 ^ tc18, S4 = tc14 ^ S3, S1 = ~(S3 ^ tc16);
    const u32 tc26 = tc17 ^ tc20, S2 = ~(tc26 ^ z17), S5 = tc21 ^ tc17;
    s[7] = S0; s[6] = S1; s[5] = S2; s[4] = S3;
    s[3] = S4; s[2] = S5; s[1] = S6; s[0] = S7;
}

// The inverse S-box as the 121-gate circuit of Boyar and Peralta (Sinv, same
// collection), same bit numbering.
AESX_DEV void aesx_inv_sbox(u32 *s) {
    const u32 U0 = s[7], U1 = s[6], U2 = s[5], U3 = s[4];
    const u32 U4 = s[3], U5 = s[2], U6 = s[1], U7 = s[0];
    const u32 Y0 = U0 ^ U3, Y2 = ~(U1 ^ U3), Y4 = U0 ^ Y2, RTL0 = U6 ^ U7;
    const u32 Y1 = Y2 ^ RTL0, Y7 = ~(U2 ^ Y1), RTL1 = U3 ^ U4, Y6 = ~(U7 ^ RTL1);
    const u32 Y3 = Y1 ^ RTL1, RTL2 = ~(U0 ^ U2), Y5 = U5 ^ RTL2;
    const u32 sa1 = Y0 ^ Y2, sa0 = Y1 ^ Y3, sb1 = Y4 ^ Y6, sb0 = Y5 ^ Y7;
    const u32 ah = Y0 ^ Y1, al = Y2 ^ Y3, aa = sa0 ^ sa1, bh = Y4 ^ Y5;
    const u32 bl = Y6 ^ Y7, bb = sb0 ^ sb1, ab20 = sa0 ^ sb0, ab22 = al ^ bl;
    const u32 ab23 = Y3 ^ Y7, ab21 = sa1 ^ sb1, abcd1 = ah & bh, rr1 = Y0 & Y4;
    const u32 ph11 = ab20 ^ abcd1, t01 = Y1 & Y5, ph01 = t01 ^ abcd1, abcd2 = al & bl;
    const u32 r1 = Y2 & Y6, pl11 = ab22 ^ abcd2, r2 = Y3 & Y7, pl01 = r2 ^ abcd2;
    const u32 r3 = sa0 & sb0, vr1 = aa & bb, pr1 = vr1 ^ r3, wr1 = sa1 & sb1;
    const u32 qr1 = wr1 ^ r3, ab0 = ph11 ^ rr1, ab1 = ph01 ^ ab21, ab2 = pl11 ^ r1;
    const u32 ab3 = pl01 ^ qr1, cp1 = ab0 ^ pr1, cp2 = ab1 ^ qr1, cp3 = ab2 ^ pr1;
    const u32 cp4 = ab3 ^ ab23, tinv1 = cp3 ^ cp4, tinv2 = cp3 & cp1, tinv3 = cp2 ^ tinv2;
    const u32 tinv4 = cp1 ^ cp2, tinv5 = cp4 ^ tinv2, tinv6 = tinv5 & tinv4;
    const u32 tinv7 = tinv3 & tinv1, d2 = cp4 ^ tinv7, d0 = cp2 ^ tinv6;
    const u32 tinv8 = cp1 & cp4, tinv9 = tinv4 & tinv8, tinv10 = tinv4 ^ tinv2;
    const u32 d1 = tinv9 ^ tinv10, tinv11 = cp2 & cp3, tinv12 = tinv1 & tinv11;
    const u32 tinv13 = tinv1 ^ tinv2, d3 = tinv12 ^ tinv13, sd1 = d1 ^ d3, sd0 = d0 ^ d2;
    const u32 dl = d0 ^ d1, dh = d2 ^ d3, dd = sd0 ^ sd1, abcd3 = dh & bh;
    const u32 rr2 = d3 & Y4, t02 = d2 & Y5, abcd4 = dl & bl, r4 = d1 & Y6;
    const u32 r5 = d0 & Y7, r6 = sd0 & sb0, vr2 = dd & bb, wr2 = sd1 & sb1;
    const u32 abcd5 = dh & ah, r7 = d3 & Y0, r8 = d2 & Y1, abcd6 = dl & al;
    const u32 r9 = d1 & Y2, r10 = d0 & Y3, r11 = sd0 & sa0, vr3 = dd & aa;
    const u32 wr3 = sd1 & sa1, ph12 = rr2 ^ abcd3, ph02 = t02 ^ abcd3, pl12 = r4 ^ abcd4;
    const u32 pl02 = r5 ^ abcd4, pr2 = vr2 ^ r6, qr2 = wr2 ^ r6, p0 = ph12 ^ pr2;
    const u32 p1 = ph02 ^ qr2, p2 = pl12 ^ pr2, p3 = pl02 ^ qr2, ph13 = r7 ^ abcd5;
    const u32 ph03 = r8 ^ abcd5, pl13 = r9 ^ abcd6, pl03 = r10 ^ abcd6, pr3 = vr3 ^ r11;
    const u32 qr3 = wr3 ^ r11, p4 = ph13 ^ pr3, S7 = ph03 ^ qr3, p6 = pl13 ^ pr3;
    const u32 p7 = pl03 ^ qr3, S3 = p1 ^ p6, S6 = p2 ^ p6, S0 = p3 ^ p6;
    const u32 X11 = p0 ^ p2, S5 = S0 ^ X11, X13 = p4 ^ p7, X14 = X11 ^ X13;
    const u32 S1 = S3 ^ X14, X16 = p1 ^ S7, S2 = X14 ^ X16, X18 = p0 ^ p4;
    const u32 X19 = S5 ^ X16, S4 = X18 ^ X19;
    s[7] = S0; s[6] = S1; s[5] = S2; s[4] = S3;
    s[3] = S4; s[2] = S5; s[1] = S6; s[0] = S7;
}

// --- Round functions on the 128 slices -----------------------------------

// rk: the 128 masks of one round key, as 32 uint4 (slice 4 i + c in
// component c of rk[i]).
AESX_DEV void aesx_add_round_key(u32 *x, const uint4 *rk) {
    AESX_UNROLL
    for (int i = 0; i < 32; i++) {
        const uint4 m = aesx_load_rk4(rk + i);
        x[4 * i] ^= m.x;
        x[4 * i + 1] ^= m.y;
        x[4 * i + 2] ^= m.z;
        x[4 * i + 3] ^= m.w;
    }
}

// Masks of one round key, in uint4 units.
#define AESX_RK_STRIDE 32

AESX_DEV void aesx_sub_bytes(u32 *x) {
    AESX_UNROLL
    for (int i = 0; i < 16; i++) aesx_sbox(x + 8 * i);
}

AESX_DEV void aesx_inv_sub_bytes(u32 *x) {
    AESX_UNROLL
    for (int i = 0; i < 16; i++) aesx_inv_sbox(x + 8 * i);
}

// Row r moves left by K * r columns (mod 4): new (r, c) = old (r, c + K r).
// K is a template argument so that every index is a compile-time constant
// and the state stays in registers, as in the unrolled loops it replaces.
template <int K> AESX_DEV void aesx_rotate_rows(u32 *x) {
    AESX_UNROLL
    for (int b = 0; b < 8; b++) {
        AESX_UNROLL
        for (int r = 1; r < 4; r++) {
            u32 t[4];
            AESX_UNROLL
            for (int c = 0; c < 4; c++) t[c] = x[8 * (r + 4 * ((c + K * r) & 3)) + b];
            AESX_UNROLL
            for (int c = 0; c < 4; c++) x[8 * (r + 4 * c) + b] = t[c];
        }
    }
}

// Row r moves left by r columns.
AESX_DEV void aesx_shift_rows(u32 *x) { aesx_rotate_rows<1>(x); }

// Row r moves right by r columns (left by 3 r, mod 4).
AESX_DEV void aesx_inv_shift_rows(u32 *x) { aesx_rotate_rows<3>(x); }

// o = 2 * v in GF(2^8) on 8 slices: a left shift, with the bit pushed out
// folded back as 0x1b (bits 0, 1, 3, 4).
AESX_DEV void aesx_xtime(const u32 *v, u32 *o) {
    o[0] = v[7];
    o[1] = v[0] ^ v[7];
    o[2] = v[1];
    o[3] = v[2] ^ v[7];
    o[4] = v[3] ^ v[7];
    o[5] = v[4];
    o[6] = v[5];
    o[7] = v[6];
}

// MixColumns then AddRoundKey (rk: this round's 32 uint4 of masks), with
// every output slice written as one XOR of 5 or 7 terms, which ptxas turns
// into 2 or 3 three-input LOP3: out_r = a_r + t + 2 (a_r + a_{r+1}) + k,
// where 2 v moves bit b to b + 1 and folds bit 7 into bits 0, 1, 3 and 4
// (0x1b). Fused this way the two take about a fifth fewer logic ops than
// MixColumns followed by a separate AddRoundKey (tools/kernel_view.py shows
// the round loop's count).
// One column a (32 slices) with its 8 uint4 of masks rkc.
AESX_DEV void aesx_mix_column_ark(u32 *a, const uint4 *rkc) {
    u32 t[8], out[32];
    AESX_UNROLL
    for (int b = 0; b < 8; b++) t[b] = aesx_xor3(a[b], a[8 + b], a[16 + b]) ^ a[24 + b];
    AESX_UNROLL
    for (int r = 0; r < 4; r++) {
        const u32 *p = a + 8 * r, *q = a + 8 * ((r + 1) & 3);
        // The 8 masks of byte r of this column.
        const uint4 m0 = aesx_load_rk4(rkc + 2 * r);
        const uint4 m1 = aesx_load_rk4(rkc + 2 * r + 1);
        const u32 kr[8] = {m0.x, m0.y, m0.z, m0.w, m1.x, m1.y, m1.z, m1.w};
        // Grouped by hand: the compiler would otherwise cancel p[b]
        // against the copy inside t[b] and lose the sharing of t.
        out[8 * r + 0] = aesx_xor3(aesx_xor3(p[0], t[0], p[7]), q[7], kr[0]);
        out[8 * r + 1] =
            aesx_xor3(aesx_xor3(aesx_xor3(p[1], t[1], p[0]), q[0], p[7]), q[7], kr[1]);
        out[8 * r + 2] = aesx_xor3(aesx_xor3(p[2], t[2], p[1]), q[1], kr[2]);
        out[8 * r + 3] =
            aesx_xor3(aesx_xor3(aesx_xor3(p[3], t[3], p[2]), q[2], p[7]), q[7], kr[3]);
        out[8 * r + 4] =
            aesx_xor3(aesx_xor3(aesx_xor3(p[4], t[4], p[3]), q[3], p[7]), q[7], kr[4]);
        out[8 * r + 5] = aesx_xor3(aesx_xor3(p[5], t[5], p[4]), q[4], kr[5]);
        out[8 * r + 6] = aesx_xor3(aesx_xor3(p[6], t[6], p[5]), q[5], kr[6]);
        out[8 * r + 7] = aesx_xor3(aesx_xor3(p[7], t[7], p[6]), q[6], kr[7]);
    }
    AESX_UNROLL
    for (int b = 0; b < 32; b++) a[b] = out[b];
}

AESX_DEV void aesx_mix_columns_ark(u32 *x, const uint4 *rk) {
    AESX_UNROLL
    for (int c = 0; c < 4; c++) aesx_mix_column_ark(x + 32 * c, rk + 8 * c);
}

// InvMixColumns then AddRoundKey with a key of the equivalent inverse
// cipher: InvMixColumns = MixColumns after multiplying each column by the
// (05 00 04 00) circulant, a_r += 4 (a_r + a_{r+2}), so the fused
// MixColumns above serves here too.
AESX_DEV void aesx_inv_mix_columns_ark(u32 *x, const uint4 *rk) {
    AESX_UNROLL
    for (int c = 0; c < 4; c++) {
        u32 *a = x + 32 * c;
        u32 d[8], e[8], u[8], v[8];
        AESX_UNROLL
        for (int b = 0; b < 8; b++) d[b] = a[b] ^ a[16 + b];
        aesx_xtime(d, e);
        aesx_xtime(e, u);
        AESX_UNROLL
        for (int b = 0; b < 8; b++) d[b] = a[8 + b] ^ a[24 + b];
        aesx_xtime(d, e);
        aesx_xtime(e, v);
        AESX_UNROLL
        for (int b = 0; b < 8; b++) {
            a[b] ^= u[b];
            a[16 + b] ^= u[b];
            a[8 + b] ^= v[b];
            a[24 + b] ^= v[b];
        }
        aesx_mix_column_ark(a, rk + 8 * c);
    }
}

// --- Bitslicing ------------------------------------------------------------

// Swaps the off-diagonal j x j blocks of every 2j x 2j diagonal block of the
// 32 x 32 bit matrix a (row k = a[k], column c = bit c): the bits of
// a[k + j] under m trade places with the bits of a[k] under m << j. Two
// shifts and two bit selects per pair of rows.
#define AESX_TRANSPOSE_STAGE(a, j, m)                                          \
    AESX_UNROLL                                                                \
    for (int k = 0; k < 32; k++) {                                             \
        if ((k & (j)) == 0) {                                                  \
            const u32 p = (a)[k], q = (a)[k + (j)];                            \
            (a)[k + (j)] = aesx_select(p >> (j), q, (m));                      \
            (a)[k] = aesx_select(q << (j), p, (m) << (j));                     \
        }                                                                      \
    }

// The same swap for the two stages that move whole bytes (j = 16, 8): two
// byte permutations per pair of rows instead of five shifts and logic ops.
// lo/hi pick the bytes of the new a[k] and a[k + j] from (a[k], a[k + j]).
#define AESX_TRANSPOSE_BYTES(a, j, lo, hi)                                     \
    AESX_UNROLL                                                                \
    for (int k = 0; k < 32; k++) {                                             \
        if ((k & (j)) == 0) {                                                  \
            const u32 p = (a)[k], q = (a)[k + (j)];                            \
            (a)[k] = aesx_prmt(p, q, lo);                                      \
            (a)[k + (j)] = aesx_prmt(p, q, hi);                                \
        }                                                                      \
    }

// Bit c of a[k] <-> bit k of a[c]. Its own inverse.
AESX_DEV void aesx_transpose32(u32 *a) {
    // Halves: a[k] = lo(a[k]) | lo(a[k+16]) << 16, a[k+16] = the high halves.
    AESX_TRANSPOSE_BYTES(a, 16, 0x5410u, 0x7632u)
    // Bytes: a[k] = (a0, b0, a2, b2), a[k+8] = (a1, b1, a3, b3), byte 0 first.
    AESX_TRANSPOSE_BYTES(a, 8, 0x6240u, 0x7351u)
    AESX_TRANSPOSE_STAGE(a, 4, 0x0f0f0f0fu)
    AESX_TRANSPOSE_STAGE(a, 2, 0x33333333u)
    AESX_TRANSPOSE_STAGE(a, 1, 0x55555555u)
}

// The 32 blocks of a thread between the two bitslicing transposes:
// x[32k + j] holds word k of block j, and after this bit j of x[32k + c] is
// bit c of word k of block j (register 8 i + b = bit b of byte i, as at the
// top of this file). Its own inverse.
AESX_DEV void aesx_slice_tile(u32 *x) {
    AESX_UNROLL
    for (int k = 0; k < 4; k++) aesx_transpose32(x + 32 * k);
}

// The cipher on a bitsliced tile (see aesx_slice_tile).
//
// Every round, the last included, runs through one rolled loop; the last
// skips MixColumns (fused with the round key) on a branch that is the same
// for every thread, and takes its key after the loop. One copy of the S-box
// layer (about 1,300 instructions) in the code instead of two keeps the
// kernel within the instruction cache, for one uniform branch per round.
AESX_DEV void aesx_encrypt_tile(u32 *x, const uint4 *rk, int nr) {
    aesx_add_round_key(x, rk);
    AESX_NOUNROLL
    for (int r = 1; r <= nr; r++) {
        aesx_sub_bytes(x);
        aesx_shift_rows(x);
        if (r < nr) aesx_mix_columns_ark(x, rk + AESX_RK_STRIDE * r);
    }
    // The last round's key, after the loop so that the loop holds only the
    // fused MixColumns + AddRoundKey.
    aesx_add_round_key(x, rk + AESX_RK_STRIDE * nr);
}

// FIPS 197's equivalent inverse cipher (5.3.5), rolled the same way: its
// keys (InvMixColumns of rounds 1..Nr-1) follow the encryption keys in rk,
// so the key of a middle round folds into InvMixColumns; the last round
// skips it and takes its key after the loop.
AESX_DEV void aesx_decrypt_tile(u32 *x, const uint4 *rk, int nr) {
    const uint4 *dk = rk + AESX_RK_STRIDE * (nr + 1);
    aesx_add_round_key(x, dk + AESX_RK_STRIDE * nr);
    AESX_NOUNROLL
    for (int r = nr - 1; r >= 0; r--) {
        aesx_inv_sub_bytes(x);
        aesx_inv_shift_rows(x);
        if (r > 0) aesx_inv_mix_columns_ark(x, dk + AESX_RK_STRIDE * r);
    }
    aesx_add_round_key(x, dk);
}

// --- Thread layout and memory ---------------------------------------------

// Index of the first block of this thread; its blocks are first + 32 j.
AESX_DEV u64 aesx_first_block(void) {
    const u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    return (tid >> 5) * AESX_WARP_BLOCKS + (tid & 31);
}

AESX_DEV void aesx_put_block(u32 *x, int j, uint4 v) {
    x[j] = v.x;
    x[32 + j] = v.y;
    x[64 + j] = v.z;
    x[96 + j] = v.w;
}

AESX_DEV uint4 aesx_get_block(const u32 *x, int j) {
    uint4 v;
    v.x = x[j];
    v.y = x[32 + j];
    v.z = x[64 + j];
    v.w = x[96 + j];
    return v;
}

AESX_DEV uint4 aesx_xor4(uint4 a, uint4 b) {
    uint4 r;
    r.x = a.x ^ b.x;
    r.y = a.y ^ b.y;
    r.z = a.z ^ b.z;
    r.w = a.w ^ b.w;
    return r;
}

AESX_DEV uint4 aesx_zero4(void) {
    uint4 r;
    r.x = 0;
    r.y = 0;
    r.z = 0;
    r.w = 0;
    return r;
}

// --- Counters and tweaks ------------------------------------------------------

// Block `off` of a message whose first counter block is c (bytes): inc32,
// so only the last word changes.
AESX_DEV uint4 aesx_msg_counter_block(uint4 c, u64 off) {
    c.w = aesx_bswap(aesx_bswap(c.w) + (u32)off);
    return c;
}

// Moves (message, offset) of back-to-back messages of spb blocks 32 blocks
// on: a subtraction per message crossed instead of a 64-bit division per
// block. Depends on positions only.
AESX_DEV void aesx_msg_step(u64 *msg, u64 *off, u64 spb) {
    *off += 32;
    while (*off >= spb) {
        *off -= spb;
        *msg += 1;
    }
}

// The counter blocks of this thread's 32 blocks, first + 32 j, made directly
// in bitsliced form (no transpose): lane j's counter is c + 32 j with c the
// counter of block `first`, so bits 0-4 are c's in every lane and bits from
// 5 up are c >> 5 plus j, one bitsliced ripple-carry adder whose second
// operand is the lane number itself (bit k of j over the lanes j = 0..31 is
// a constant pattern). With ctr32 (GCM's inc32) the carry stops at bit 31.
// Counter bit nb (big-endian block) is bit nb % 8 of byte 15 - nb / 8.
// Depends on the counter and positions only, both public.
AESX_DEV void aesx_counter_slices(u32 *x, u64 ctr_hi, u64 ctr_lo, u64 first, bool ctr32) {
    u64 lo, hi;
    if (ctr32) {
        lo = (ctr_lo & 0xffffffff00000000ull) | (u64)(u32)((u32)ctr_lo + (u32)first);
        hi = ctr_hi;
    } else {
        lo = ctr_lo + first;
        hi = ctr_hi + (lo < ctr_lo ? 1 : 0);
    }
    const u32 lane_bits[5] = {0xaaaaaaaau, 0xccccccccu, 0xf0f0f0f0u, 0xff00ff00u, 0xffff0000u};
    u32 carry = 0;
    AESX_UNROLL
    for (int nb = 0; nb < 128; nb++) {
        const u64 word = nb < 64 ? lo : hi;
        const u32 m = 0u - (u32)((word >> (nb & 63)) & 1u);
        u32 sum;
        if (nb < 5) {
            sum = m;
        } else if (nb < 10) {
            const u32 jb = lane_bits[nb - 5];
            sum = m ^ jb ^ carry;
            carry = (m & jb) | (carry & (m ^ jb));
        } else {
            sum = m ^ carry;
            carry = m & carry;
        }
        if (nb == 31 && ctr32) carry = 0;
        x[8 * (15 - nb / 8) + nb % 8] = sum;
    }
}

// Walks the XTS tweaks of this thread's blocks first, first + 32, ...: block
// g is block j = g mod spb of sector s = g / spb, with tweak tweaks[s] * x^j.
// All of it depends on positions only; the tweak values go through the
// constant-time field arithmetic.
struct aesx_tweak_walk {
    u64 sector;
    u64 j;
    aesx_gf t;
};

AESX_DEV aesx_tweak_walk aesx_tweak_start(const uint4 *tweaks, u64 first, u64 spb) {
    aesx_tweak_walk w;
    w.sector = first / spb;
    w.j = first - w.sector * spb;
    w.t = aesx_gf_mulx_pow(aesx_gf_from4(tweaks[w.sector]), w.j);
    return w;
}

// The walk's move onto a later sector, from its block j >= spb: once per
// sector at most, so it stays out of line and each of the 32 unrolled steps
// carries only the common case, a multiplication by x^32.
AESX_DEV_COLD aesx_tweak_walk aesx_tweak_reseat(aesx_tweak_walk w, const uint4 *tweaks,
                                                u64 spb) {
    while (w.j >= spb) {
        w.j -= spb;
        w.sector += 1;
    }
    w.t = aesx_gf_mulx_pow(aesx_gf_from4(tweaks[w.sector]), w.j);
    return w;
}

// Moves the walk 32 blocks on; only called while that block exists.
AESX_DEV void aesx_tweak_step(aesx_tweak_walk *w, const uint4 *tweaks, u64 spb) {
    w->j += 32;
    if (w->j < spb) {
        w->t = aesx_gf_mulx_k(w->t, 32);
    } else {
        *w = aesx_tweak_reseat(*w, tweaks, spb);
    }
}

// --- The kernels, one per mode family -----------------------------------------

// One kernel per mode family (ECB encryption with the XTS sector tweaks,
// ECB decryption, CTR with either counter, GCM's CTR over many messages,
// CBC decryption, XTS each way): a kernel
// holding every mode's 32 unrolled loads and stores is several times larger
// than the instruction cache, and fetch stalls then dominate. Within a
// family the mode is the same for every thread of a launch, so its branches
// never diverge.
//
// mode                  n        a, b               input block g / output
// AESX_MODE_ECB         blocks   -                  in[g] / E(.)
// AESX_MODE_CTR         bytes    counter hi, lo     ctr + g / in ^ E(.) (any length)
// AESX_MODE_CTR32       bytes    counter hi, lo     inc32 counter, as CTR
// AESX_MODE_XTS_TWEAKS  sectors  sector lo, hi      sector number, LE / E(.)
// AESX_MODE_XTS         blocks   -                  in[g] ^ T / E(.) ^ T
// AESX_MODE_CBC         blocks   iv lo, hi          in[g] / D(.) ^ in[g-1]
// AESX_MODE_CTR_MSGS    bytes    -                  message m = g / spb starts at
//                                                   counter block tweaks[m] (bytes),
//                                                   inc32 within it / in ^ E(.)
//
// CTR_MSGS is GCM over many messages at once (the file format's chunks): the
// messages lie back to back every spb blocks, only the last may be shorter,
// and tweaks[m] is inc32(J0) of message m.
//
// in may equal out except for CBC (a thread reads the block before its own,
// which another thread writes). Buffers are 16-byte aligned.
#define AESX_MODE_ECB 0
#define AESX_MODE_CTR 1
#define AESX_MODE_CTR32 2
#define AESX_MODE_XTS_TWEAKS 3
#define AESX_MODE_XTS 4
#define AESX_MODE_CBC 5
#define AESX_MODE_CTR_MSGS 6

#define AESX_BIT(m) (1 << (m))

// How the XTS kernels apply the tweaks, each block's twice (before and
// after the cipher):
//   2 (default): one rolled walk parks the tweaks in the output blocks,
//     which are read back before and after the cipher;
//   1: the walk unrolled in the 32 input lanes, parking the tweaks for the
//     output (fewer instructions run, a larger kernel);
//   0: the walk unrolled in the input lanes and again in the output lanes
//     (the largest kernel).
// 0 and 1 are kept to be measured against 2 on a GPU (AESX_CUDA_XTS=rewalk
// or unrolled, src/kernels.rs).
#ifndef AESX_XTS_WALK
#define AESX_XTS_WALK 2
#endif

// Whether this launch runs mode m, for a kernel serving the modes in the
// bit set MODES: a compile-time false outside the family and a
// compile-time true for a one-mode family, so each kernel keeps only its
// own family's code.
template <int MODES> AESX_DEV bool aesx_is(int mode, int m) {
    return (MODES & AESX_BIT(m)) != 0 && (MODES == AESX_BIT(m) || mode == m);
}

template <int DECRYPT, int MODES>
AESX_DEV void aesx_run(int mode, const unsigned char *in, unsigned char *out, u64 n,
                       const uint4 *rk, int nr, u64 a, u64 b, const uint4 *tweaks, u64 spb) {
    const bool ctr = aesx_is<MODES>(mode, AESX_MODE_CTR) ||
                     aesx_is<MODES>(mode, AESX_MODE_CTR32) ||
                     aesx_is<MODES>(mode, AESX_MODE_CTR_MSGS);
    const bool xts = aesx_is<MODES>(mode, AESX_MODE_XTS);
    const bool msgs = aesx_is<MODES>(mode, AESX_MODE_CTR_MSGS);
    const u64 nblocks = ctr ? (n + 15) / 16 : n;
    const u64 first = aesx_first_block();
    if (first >= nblocks) return;
    const uint4 *in4 = (const uint4 *)in;
    uint4 *out4 = (uint4 *)out;
    aesx_tweak_walk w;
    w.sector = 0;
    w.j = 0;
    w.t.lo = 0;
    w.t.hi = 0;
    if (xts) w = aesx_tweak_start(tweaks, first, spb);
    // CTR_MSGS: this thread's first block is block `off` of message `msg`.
    u64 msg = 0, off = 0;
    if (msgs) {
        msg = first / spb;
        off = first - msg * spb;
    }
    // A kernel of plain CTR (either counter) only: its counters are made
    // bitsliced, skipping the input transpose. The loads below have no CTR
    // path, so no other family may hold those modes.
#define AESX_CTR_MODES (AESX_BIT(AESX_MODE_CTR) | AESX_BIT(AESX_MODE_CTR32))
    static_assert((MODES & AESX_CTR_MODES) == 0 || (MODES & ~AESX_CTR_MODES) == 0,
                  "CTR and CTR32 share a kernel only with each other");
    const bool sliced_counters = (MODES & ~AESX_CTR_MODES) == 0;
    u32 x[128];
    if (sliced_counters) {
        aesx_counter_slices(x, a, b, first, aesx_is<MODES>(mode, AESX_MODE_CTR32));
    } else {
        AESX_UNROLL
        for (int j = 0; j < AESX_LANES; j++) {
            const u64 g = first + 32 * (u64)j;
            uint4 v = aesx_zero4();
            if (msgs) {
                if (j > 0) aesx_msg_step(&msg, &off, spb);
                // Blocks past the end have no message (and no counter entry).
                if (g < nblocks) v = aesx_msg_counter_block(tweaks[msg], off);
            } else if (aesx_is<MODES>(mode, AESX_MODE_XTS_TWEAKS)) {
                aesx_gf s;
                s.lo = a + g;
                s.hi = b + (s.lo < a ? 1 : 0);
                v = aesx_gf_to4(s);
            } else if (g < nblocks) {
                v = in4[g];
#if AESX_XTS_WALK != 2
                if (xts) {
                    if (j > 0) aesx_tweak_step(&w, tweaks, spb);
                    const uint4 t = aesx_gf_to4(w.t);
                    v = aesx_xor4(v, t);
#if AESX_XTS_WALK == 1
                    out4[g] = t;
#endif
                }
#endif
            }
            aesx_put_block(x, j, v);
        }
#if AESX_XTS_WALK == 2
        if (xts) {
            // The tweaks are parked in the output blocks (this thread's
            // own, whose input is already in registers when in == out),
            // made by one rolled copy of the walk, and read back twice:
            // now, and after the cipher. One copy of the walk's code
            // instead of one per lane keeps the code outside the round
            // loop close to ECB's.
            const u64 left = (nblocks - first + 31) / 32;
            const u32 lanes = left < AESX_LANES ? (u32)left : AESX_LANES;
            uint4 *o = out4 + first;
            *o = aesx_gf_to4(w.t);
            AESX_NOUNROLL
            for (u32 j = 1; j < lanes; j++) {
                o += 32;
                aesx_tweak_step(&w, tweaks, spb);
                *o = aesx_gf_to4(w.t);
            }
            AESX_UNROLL
            for (int j = 0; j < AESX_LANES; j++) {
                const u64 g = first + 32 * (u64)j;
                if (g < nblocks) {
                    const uint4 t = out4[g];
                    x[j] ^= t.x;
                    x[32 + j] ^= t.y;
                    x[64 + j] ^= t.z;
                    x[96 + j] ^= t.w;
                }
            }
        }
#endif
        aesx_slice_tile(x);
    }
    if (DECRYPT) {
        aesx_decrypt_tile(x, rk, nr);
    } else {
        aesx_encrypt_tile(x, rk, nr);
    }
    aesx_slice_tile(x);
#if AESX_XTS_WALK == 0
    // The walk again for the output.
    if (xts) w = aesx_tweak_start(tweaks, first, spb);
#endif
    const u64 nfull = ctr ? n / 16 : nblocks;
    // CTR's partial last block: at most one lane of one thread has it. Its
    // keystream is picked out here (word indices stay constants, so the
    // state stays in registers) and written byte by byte once, below,
    // rather than in each of the 32 unrolled lanes.
    uint4 tail = aesx_zero4();
    bool has_tail = false;
    AESX_UNROLL
    for (int j = 0; j < AESX_LANES; j++) {
        const u64 g = first + 32 * (u64)j;
        const uint4 r = aesx_get_block(x, j);
        if (g < nfull) {
            if (ctr) {
                out4[g] = aesx_xor4(in4[g], r);
            } else if (xts) {
#if AESX_XTS_WALK == 0
                if (j > 0) aesx_tweak_step(&w, tweaks, spb);
                out4[g] = aesx_xor4(r, aesx_gf_to4(w.t));
#else
                out4[g] = aesx_xor4(r, out4[g]);
#endif
            } else if (aesx_is<MODES>(mode, AESX_MODE_CBC)) {
                aesx_gf iv;
                iv.lo = a;
                iv.hi = b;
                out4[g] = aesx_xor4(r, g == 0 ? aesx_gf_to4(iv) : in4[g - 1]);
            } else {
                out4[g] = r;
            }
        } else if (ctr && g == nfull) {
            tail = r;
            has_tail = true;
        }
    }
    if (ctr && has_tail && n % 16 != 0) {
        const u32 rem = (u32)(n % 16);
        AESX_UNROLL
        for (u32 i = 0; i < 15; i++) {
            const u32 k = i < 4 ? tail.x : i < 8 ? tail.y : i < 12 ? tail.z : tail.w;
            if (i < rem) {
                out[16 * nfull + i] = in[16 * nfull + i] ^ (unsigned char)(k >> (8 * (i % 4)));
            }
        }
    }
}

// Registers against occupancy: the state is 128 registers a thread. Two
// CTAs of 128 threads (8 warps) per SM let ptxas use 255 registers without
// spilling, and the 32 independent blocks of each thread hide latency;
// three (12 warps) cap it at 168, which spills in the round loop of most
// kernels. Which is faster is for a GPU to say: the host may pass
// -DAESX_MIN_CTAS (src/kernels.rs, AESX_CUDA_MIN_CTAS).
#ifndef AESX_MIN_CTAS
#define AESX_MIN_CTAS 2
#endif
#ifdef AESX_EMULATE
#define AESX_AES_BOUNDS
#else
#define AESX_AES_BOUNDS __launch_bounds__(128, AESX_MIN_CTAS)
#endif

#define AESX_AES_KERNEL(name, decrypt, modes)                                            \
    extern "C" __global__ void AESX_AES_BOUNDS name(                                    \
        int mode, const unsigned char *in, unsigned char *out, u64 n, const uint4 *rk,   \
        int nr, u64 a, u64 b, const uint4 *tweaks, u64 spb) {                            \
        aesx_run<decrypt, modes>(mode, in, out, n, rk, nr, a, b, tweaks, spb);           \
    }

AESX_AES_KERNEL(aesx_ecb_encrypt, 0, AESX_BIT(AESX_MODE_ECB) | AESX_BIT(AESX_MODE_XTS_TWEAKS))
AESX_AES_KERNEL(aesx_ecb_decrypt, 1, AESX_BIT(AESX_MODE_ECB))
AESX_AES_KERNEL(aesx_ctr, 0, AESX_BIT(AESX_MODE_CTR) | AESX_BIT(AESX_MODE_CTR32))
AESX_AES_KERNEL(aesx_ctr_msgs, 0, AESX_BIT(AESX_MODE_CTR_MSGS))
AESX_AES_KERNEL(aesx_cbc_decrypt, 1, AESX_BIT(AESX_MODE_CBC))
AESX_AES_KERNEL(aesx_xts_encrypt, 0, AESX_BIT(AESX_MODE_XTS))
AESX_AES_KERNEL(aesx_xts_decrypt, 1, AESX_BIT(AESX_MODE_XTS))
