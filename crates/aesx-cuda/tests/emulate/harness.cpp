// Runs the aesx CUDA kernels on the CPU, one thread after another, so that
// the bitsliced circuits, counters, tweaks and the GHASH tree are checked
// against aesx on machines without a GPU (tests/emulated_kernels.rs).
//
// stdin: u32 nr, u32 unused, u32 rk[60], u32 rk2[60] (round-key words, for
//        the T-table kernel), u32 rkm[3840], u32 rkm2[3840] (the same keys
//        as the bitsliced kernels' masks, encryption then decryption
//        schedule, made by the crate's host code, zero-padded),
//        u64 p[6], u64 grid, u64 block, u64 grid2, u64 block2, u64 len,
//        len bytes.
// argv[1]: the kernel; stdout: the output bytes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define AESX_EMULATE
#include "../../kernels/prelude.cuh"

struct uint4 {
    u32 x, y, z, w;
};
struct aesx_dim {
    u64 x;
};
static aesx_dim blockIdx, blockDim, threadIdx;
#define __global__
#define AESX_DEV static inline
#define AESX_DEV_COLD static
#define AESX_UNROLL
static inline u32 aesx_brev(u32 x) {
    u32 r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static inline u32 aesx_bswap(u32 x) {
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
static inline u32 aesx_xor3(u32 a, u32 b, u32 c) { return a ^ b ^ c; }
static inline u32 aesx_select(u32 a, u32 b, u32 m) { return (a & m) | (b & ~m); }
template <u32 F> static inline u32 aesx_lop3(u32 a, u32 b, u32 c) {
    u32 r = 0;
    for (int v = 0; v < 8; v++)
        if ((F >> v) & 1) r |= ((v & 4) ? a : ~a) & ((v & 2) ? b : ~b) & ((v & 1) ? c : ~c);
    return r;
}
static inline u32 aesx_prmt(u32 a, u32 b, u32 s) {
    const u64 v = (u64)a | ((u64)b << 32);
    u32 r = 0;
    for (int i = 0; i < 4; i++) r |= (u32)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
    return r;
}
static inline u64 aesx_mul_wide(u32 a, u32 b) { return (u64)a * b; }
static inline uint4 aesx_load_rk4(const uint4 *p) { return *p; }

#include "../../kernels/gf128.cuh"
#include "../../kernels/sbox_lop3.cuh"
#include "../../kernels/aes_bitsliced.cu"
#include "../../kernels/ghash.cu"
#include "../../kernels/aes_ttable_compare.cu"

// The kernel of the mode's family, as src/kernels.rs picks it.
static void aesx_cipher(int decrypt, int mode, const unsigned char *in, unsigned char *out, u64 n,
                        const uint4 *rk, int nr, u64 a, u64 b, const uint4 *tw, u64 spb) {
    if (mode == AESX_MODE_ECB || mode == AESX_MODE_XTS_TWEAKS) {
        if (decrypt) {
            aesx_ecb_decrypt(mode, in, out, n, rk, nr, a, b, tw, spb);
        } else {
            aesx_ecb_encrypt(mode, in, out, n, rk, nr, a, b, tw, spb);
        }
    } else if (mode == AESX_MODE_CTR || mode == AESX_MODE_CTR32) {
        if (decrypt) abort();
        aesx_ctr(mode, in, out, n, rk, nr, a, b, tw, spb);
    } else if (mode == AESX_MODE_CTR_MSGS) {
        if (decrypt) abort();
        aesx_ctr_msgs(mode, in, out, n, rk, nr, a, b, tw, spb);
    } else if (mode == AESX_MODE_CBC) {
        if (!decrypt) abort();
        aesx_cbc_decrypt(mode, in, out, n, rk, nr, a, b, tw, spb);
    } else if (mode == AESX_MODE_XTS) {
        if (decrypt) {
            aesx_xts_decrypt(mode, in, out, n, rk, nr, a, b, tw, spb);
        } else {
            aesx_xts_encrypt(mode, in, out, n, rk, nr, a, b, tw, spb);
        }
    } else {
        abort();
    }
}

template <class F> static void launch(u64 grid, u64 block, F f) {
    blockDim.x = block;
    for (u64 b = 0; b < grid; b++) {
        for (u64 t = 0; t < block; t++) {
            blockIdx.x = b;
            threadIdx.x = t;
            f();
        }
    }
}

static void read_exact(void *p, size_t n) {
    if (fread(p, 1, n, stdin) != n) {
        fprintf(stderr, "short input\n");
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *k = argv[1];
    u32 nr, unused, rk[60], rk2[60];
    // uint4-aligned, as the device copies are.
    static uint4 rkm[2 * 15 * 32], rkm2[2 * 15 * 32];
    u64 p[6], grid, block, grid2, block2, len;
    read_exact(&nr, 4);
    read_exact(&unused, 4);
    read_exact(rk, sizeof rk);
    read_exact(rk2, sizeof rk2);
    read_exact(rkm, sizeof rkm);
    read_exact(rkm2, sizeof rkm2);
    read_exact(p, sizeof p);
    read_exact(&grid, 8);
    read_exact(&block, 8);
    read_exact(&grid2, 8);
    read_exact(&block2, 8);
    read_exact(&len, 8);
    // uint4-aligned buffers, as device allocations are.
    std::vector<uint4> in((len + 15) / 16 + 1), out((len + 15) / 16 + 1);
    read_exact(in.data(), len);
    unsigned char *ib = (unsigned char *)in.data(), *ob = (unsigned char *)out.data();
    u64 out_len = len;
    const int inr = (int)nr;
    const unsigned char *cin = ib;
    unsigned char *cout = ob;
    auto enc = [&](int mode, const void *src, void *dst, u64 n, const uint4 *key, u64 a, u64 b,
                   const uint4 *tw, u64 spb) {
        launch(grid, block, [&] {
            aesx_cipher(0, mode, (const unsigned char *)src, (unsigned char *)dst, n, key, inr, a,
                        b, tw, spb);
        });
    };
    auto dec = [&](int mode, const void *src, void *dst, u64 n, const uint4 *key, u64 a, u64 b,
                   const uint4 *tw, u64 spb) {
        launch(grid, block, [&] {
            aesx_cipher(1, mode, (const unsigned char *)src, (unsigned char *)dst, n, key, inr, a,
                        b, tw, spb);
        });
    };
    if (!strcmp(k, "ecb_encrypt")) {
        enc(AESX_MODE_ECB, cin, cout, len / 16, rkm, 0, 0, nullptr, 0);
    } else if (!strcmp(k, "ecb_decrypt")) {
        dec(AESX_MODE_ECB, cin, cout, len / 16, rkm, 0, 0, nullptr, 0);
    } else if (!strcmp(k, "ecb_encrypt_in_place")) {
        enc(AESX_MODE_ECB, ib, ib, len / 16, rkm, 0, 0, nullptr, 0);
        memcpy(ob, ib, len);
    } else if (!strcmp(k, "cbc_decrypt")) {
        dec(AESX_MODE_CBC, cin, cout, len / 16, rkm, p[0], p[1], nullptr, 0);
    } else if (!strcmp(k, "ctr")) {
        enc(p[2] ? AESX_MODE_CTR32 : AESX_MODE_CTR, cin, cout, len, rkm, p[0], p[1], nullptr, 0);
    } else if (!strcmp(k, "ctr_in_place")) {
        enc(p[2] ? AESX_MODE_CTR32 : AESX_MODE_CTR, ib, ib, len, rkm, p[0], p[1], nullptr, 0);
        memcpy(ob, ib, len);
    } else if (!strncmp(k, "xts_encrypt", 11) || !strncmp(k, "xts_decrypt", 11)) {
        // "xts_encrypt_in_place": the kernel reads and writes one buffer,
        // as the host API runs it.
        const bool in_place = strlen(k) > 11;
        const u64 spb = p[2], nsect = len / 16 / spb;
        std::vector<uint4> tw(nsect + 1);
        launch(grid2, block2, [&] {
            aesx_cipher(0, AESX_MODE_XTS_TWEAKS, nullptr, (unsigned char *)tw.data(), nsect, rkm2,
                        inr, p[0], p[1], nullptr, 0);
        });
        unsigned char *dst = in_place ? ib : cout;
        if (!strncmp(k, "xts_decrypt", 11)) {
            dec(AESX_MODE_XTS, cin, dst, len / 16, rkm, 0, 0, tw.data(), spb);
        } else {
            enc(AESX_MODE_XTS, cin, dst, len / 16, rkm, 0, 0, tw.data(), spb);
        }
        if (in_place) memcpy(ob, ib, len);
    } else if (!strcmp(k, "ctr_msgs")) {
        // Input: p[0] counter blocks (16 bytes each), then the data.
        const u64 nmsgs = p[0], spb = p[1], n = len - 16 * nmsgs;
        enc(AESX_MODE_CTR_MSGS, ib + 16 * nmsgs, ob, n, rkm, 0, 0, in.data(), spb);
        out_len = n;
    } else if (!strcmp(k, "ghash_msgs")) {
        const u64 nmsgs = p[4], nruns = p[5];
        out.assign(nmsgs * nruns + 1, uint4{0, 0, 0, 0});
        ob = (unsigned char *)out.data();
        launch(grid, block, [&] {
            aesx_ghash_msgs(ib, len, p[3], (int)p[2], out.data(), nmsgs, nruns, p[0], p[1]);
        });
        out_len = 16 * nmsgs * nruns;
    } else if (!strcmp(k, "ghash_msgs_pows") || !strcmp(k, "ghash_runs_pows")) {
        // Input: the kernel's table of powers (512 bytes), then the data;
        // p[0], p[1] (the base) are unused.
        aesx_ghash_pows pows;
        memcpy(&pows, ib, sizeof pows);
        const unsigned char *d = ib + sizeof pows;
        const u64 n = len - sizeof pows;
        if (!strcmp(k, "ghash_msgs_pows")) {
            const u64 nmsgs = p[4], nruns = p[5];
            out.assign(nmsgs * nruns + 1, uint4{0, 0, 0, 0});
            launch(grid, block, [&] {
                aesx_ghash_msgs_pows(d, n, p[3], (int)p[2], out.data(), nmsgs, nruns, pows);
            });
            out_len = 16 * nmsgs * nruns;
        } else {
            const u64 nruns = p[4];
            out.assign(nruns + 1, uint4{0, 0, 0, 0});
            launch(grid, block,
                   [&] { aesx_ghash_runs_pows(d, n, (int)p[2], out.data(), nruns, p[3], pows); });
            out_len = 16 * nruns;
        }
        ob = (unsigned char *)out.data();
    } else if (!strcmp(k, "ttable_ctr")) {
        std::vector<u32> te(256), sb(256);
        launch(1, 256, [&] { aesx_tt_setup(te.data(), sb.data()); });
        const u64 nb = (len + 15) / 16;
        launch((nb + 127) / 128, 128,
               [&] { aesx_tt_ctr(ib, ob, len, rk, inr, p[0], p[1], te.data(), sb.data()); });
    } else if (!strcmp(k, "ghash_runs")) {
        const u64 nruns = p[4];
        out.assign(nruns + 1, uint4{0, 0, 0, 0});
        ob = (unsigned char *)out.data();
        launch(grid, block,
               [&] { aesx_ghash_runs(ib, len, (int)p[2], out.data(), nruns, p[3], p[0], p[1]); });
        out_len = 16 * nruns;
    } else {
        fprintf(stderr, "unknown kernel %s\n", k);
        return 2;
    }
    fwrite(ob, 1, out_len, stdout);
    return 0;
}
