//! The portable backend: constant-time bitsliced AES.
//!
//! Sixteen blocks go through the rounds together as 32 words of 64 bits (the
//! layout is in [`bitslice`]); the S-box is a Boolean circuit ([`sbox`]) and
//! the linear layers are XORs and rotations ([`round`]). No table is indexed
//! by key or data and no branch depends on them: the only branches are on
//! lengths, which are public. A partial batch is padded with zero blocks and
//! costs as much as a full one.
//!
//! Other soft kernels (GHASH, XTS) live in sibling files as further `impl`
//! blocks on [`SoftAes`] and reach the cipher through
//! [`SoftAes::encrypt_blocks_par`] / [`SoftAes::decrypt_blocks_par`] or the
//! [`BlockKernels`] methods.

mod bitslice;
mod round;
mod sbox;

use zeroize::Zeroize;

use self::bitslice::{pack, unpack, State};
use self::round::RoundKey;
use super::inout::InOut;
use super::kernels::BlockKernels;
use crate::key::{Block, RoundKeys, BLOCK_LEN, MAX_ROUNDS};

pub(crate) use self::bitslice::PAR;

/// An expanded key for the soft backend: each FIPS 197 round key broadcast to
/// all sixteen lanes of the bitsliced layout. Zeroized on drop.
#[derive(Clone)]
pub(crate) struct SoftAes {
    rk: [RoundKey; MAX_ROUNDS + 1],
    rounds: usize,
}

impl Drop for SoftAes {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl SoftAes {
    pub(crate) fn new(rk: &RoundKeys) -> Self {
        let rounds = rk.rounds();
        let mut keys = [[0u64; 32]; MAX_ROUNDS + 1];
        let mut copies = [[0u8; BLOCK_LEN]; PAR];
        for (dst, src) in keys.iter_mut().zip(&rk.rk).take(rounds + 1) {
            // Packing sixteen copies of a round key is exactly its broadcast.
            copies = [*src; PAR];
            *dst = pack(&copies);
        }
        copies.zeroize();
        SoftAes { rk: keys, rounds }
    }

    /// The round keys in use, `rounds + 1` of them.
    #[inline]
    fn keys(&self) -> &[RoundKey] {
        &self.rk[..=self.rounds]
    }

    /// Encrypts blocks in place, sixteen at a time.
    #[allow(dead_code)] // for the GCM and XTS kernels in sibling files
    pub(crate) fn encrypt_blocks_par(&self, blocks: &mut [Block]) {
        self.encrypt_blocks(InOut::in_place(blocks.as_flattened_mut()));
    }

    /// Decrypts blocks in place, sixteen at a time.
    #[allow(dead_code)] // for the XTS kernels in a sibling file
    pub(crate) fn decrypt_blocks_par(&self, blocks: &mut [Block]) {
        self.decrypt_blocks(InOut::in_place(blocks.as_flattened_mut()));
    }

    /// ECB in either direction: batches of sixteen blocks through `cipher`.
    #[inline(always)]
    fn ecb(&self, mut io: InOut<'_>, cipher: fn(&mut State, &[RoundKey])) {
        let n = io.blocks();
        let mut buf = [[0u8; BLOCK_LEN]; PAR];
        let mut q: State = [0; 32];
        let mut first = 0;
        while first < n {
            let m = (n - first).min(PAR);
            load(&io, first, m, &mut buf);
            q = pack(&buf);
            cipher(&mut q, self.keys());
            unpack(&mut q, &mut buf);
            for (j, b) in buf[..m].iter().enumerate() {
                io.write_block(first + j, b);
            }
            first += m;
        }
        buf.zeroize();
        q.zeroize();
    }
}

/// Reads input blocks `first..first + m` into `buf[..m]` and zeroes the rest,
/// so a short batch carries no stale data.
#[inline(always)]
fn load(io: &InOut<'_>, first: usize, m: usize, buf: &mut [Block; PAR]) {
    for (j, b) in buf.iter_mut().enumerate() {
        *b = if j < m {
            io.read_block(first + j)
        } else {
            [0; BLOCK_LEN]
        };
    }
}

#[inline(always)]
fn xor_into(dst: &mut Block, src: &Block) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

impl BlockKernels for SoftAes {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        self.ecb(io, round::encrypt);
    }

    fn decrypt_blocks(&self, io: InOut<'_>) {
        self.ecb(io, round::decrypt);
    }

    /// Sixteen ciphertext blocks are decrypted together; each batch's
    /// ciphertext stays in `ct` for the chaining, so in-place calls need no
    /// further copy.
    fn cbc_decrypt(&self, iv: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut ct = [[0u8; BLOCK_LEN]; PAR];
        let mut pt = [[0u8; BLOCK_LEN]; PAR];
        let mut q: State = [0; 32];
        let mut first = 0;
        while first < n {
            let m = (n - first).min(PAR);
            load(&io, first, m, &mut ct);
            q = pack(&ct);
            round::decrypt(&mut q, self.keys());
            unpack(&mut q, &mut pt);
            for j in 0..m {
                xor_into(&mut pt[j], if j == 0 { &*iv } else { &ct[j - 1] });
                io.write_block(first + j, &pt[j]);
            }
            *iv = ct[m - 1];
            first += m;
        }
        pt.zeroize();
        q.zeroize();
    }

    /// Sixteen counter blocks per batch, encrypted together and XORed
    /// straight into the output.
    fn ctr_apply(&self, ctr: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut c = u128::from_be_bytes(*ctr);
        let mut ks = [[0u8; BLOCK_LEN]; PAR];
        let mut q: State = [0; 32];
        let mut first = 0;
        while first < n {
            let m = (n - first).min(PAR);
            for (j, b) in ks.iter_mut().enumerate() {
                *b = c.wrapping_add(j as u128).to_be_bytes();
            }
            c = c.wrapping_add(m as u128);
            q = pack(&ks);
            round::encrypt(&mut q, self.keys());
            unpack(&mut q, &mut ks);
            for (j, k) in ks[..m].iter().enumerate() {
                let mut b = io.read_block(first + j);
                xor_into(&mut b, k);
                io.write_block(first + j, &b);
            }
            first += m;
        }
        *ctr = c.to_be_bytes();
        ks.zeroize();
        q.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generic kernels of [`BlockKernels`] on top of the soft ECB: the
    /// reference for the soft backend's own CBC and CTR.
    struct Generic<'a>(&'a SoftAes);

    impl BlockKernels for Generic<'_> {
        fn encrypt_blocks(&self, io: InOut<'_>) {
            self.0.encrypt_blocks(io);
        }
        fn decrypt_blocks(&self, io: InOut<'_>) {
            self.0.decrypt_blocks(io);
        }
    }

    fn key(len: usize) -> SoftAes {
        let k: Vec<u8> = (0..len as u8).collect();
        SoftAes::new(&RoundKeys::expand(&k).unwrap())
    }

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn fips197_appendix_c_every_lane() {
        let pt = h("00112233445566778899aabbccddeeff");
        for (len, ct) in [
            (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
            (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
            (32, "8ea2b7ca516745bfeafc49904b496089"),
        ] {
            let aes = key(len);
            let ct = h(ct);
            // 1, a partial batch, a full one, and one spilling over.
            for n in [1, 5, 16, 17, 35] {
                let mut buf = pt.repeat(n);
                aes.encrypt_blocks(InOut::in_place(&mut buf));
                assert_eq!(buf, ct.repeat(n), "encrypt, {len}-byte key, {n} blocks");
                aes.decrypt_blocks(InOut::in_place(&mut buf));
                assert_eq!(buf, pt.repeat(n), "decrypt, {len}-byte key, {n} blocks");
            }
        }
    }

    #[test]
    fn lanes_are_independent() {
        let aes = key(16);
        let mut data: Vec<u8> = (0..16 * 23).map(|i| (i * 7 + 3) as u8).collect();
        let mut one_by_one = data.clone();
        for b in one_by_one.chunks_exact_mut(16) {
            aes.encrypt_blocks(InOut::in_place(b));
        }
        aes.encrypt_blocks(InOut::in_place(&mut data));
        assert_eq!(data, one_by_one);
    }

    #[test]
    fn cbc_and_ctr_match_generic_kernels() {
        for len in [16, 24, 32] {
            let aes = key(len);
            for n in [0, 1, 15, 16, 17, 40] {
                let src: Vec<u8> = (0..16 * n).map(|i| (i * 31 + len) as u8).collect();
                let iv: Block = core::array::from_fn(|i| 0xf0 + i as u8);
                // A counter about to wrap, to cross 2^128 inside a batch.
                let mut ctr0 = [0xff; 16];
                ctr0[15] = 0xf8;

                let (mut iv_a, mut iv_b) = (iv, iv);
                let mut a = src.clone();
                let mut b = vec![0u8; src.len()];
                aes.cbc_decrypt(&mut iv_a, InOut::in_place(&mut a));
                Generic(&aes).cbc_decrypt(&mut iv_b, InOut::new(&src, &mut b).unwrap());
                assert_eq!(a, b);
                assert_eq!(iv_a, iv_b);

                let (mut c_a, mut c_b) = (ctr0, ctr0);
                let mut a = src.clone();
                let mut b = vec![0u8; src.len()];
                aes.ctr_apply(&mut c_a, InOut::in_place(&mut a));
                Generic(&aes).ctr_apply(&mut c_b, InOut::new(&src, &mut b).unwrap());
                assert_eq!(a, b);
                assert_eq!(c_a, c_b);
            }
        }
    }
}
