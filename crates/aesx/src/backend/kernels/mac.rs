//! Kernels for the modes built on a CBC-MAC chain or on the key-wrap
//! function: CCM (SP 800-38C), CMAC (SP 800-38B), KW/KWP (SP 800-38F,
//! RFC 3394/5649).
//!
//! All of them are serial: every AES call waits for the one before it, so
//! they run at the latency of one AES block, not at its throughput. The
//! generic versions here go through `encrypt_blocks`/`decrypt_blocks` one
//! block at a time (CCM's CTR half in batches, the shape a bitsliced backend
//! wants); hardware backends override them with loops that keep the chaining
//! value in a register, and for CCM run the CTR rounds interleaved with the
//! MAC rounds, where they fill the pipeline slots the chain leaves idle.

use zeroize::Zeroize;

use super::inout::InOut;
use super::BlockKernels;
use crate::key::{Block, BLOCK_LEN};

/// Blocks per batch in the generic CCM kernel (2 KiB on the stack).
const BATCH: usize = 128;

/// Serial MAC and key-wrap kernels over whole blocks.
pub(crate) trait MacKernels: BlockKernels {
    /// CBC-MAC over whole blocks: `state = E(state ^ block)` for each block
    /// of `data` (`data.len() % 16 == 0`).
    fn cbc_mac(&self, state: &mut Block, data: &[u8]) {
        for chunk in data.chunks_exact(BLOCK_LEN) {
            xor_into(state, chunk);
            self.encrypt_blocks(InOut::in_place(state));
        }
    }

    /// CCM encryption of whole blocks: the plaintext goes into the CBC-MAC
    /// `mac`, then is XORed with the keystream of the counter block `ctr`.
    /// `ctr` advances by the number of blocks; CCM's counter never carries
    /// out of its low 64 bits (at most 2^60 blocks), so kernels may count in
    /// 64-bit lanes.
    fn ccm_encrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        ccm_generic(self, mac, ctr, io, true);
    }

    /// CCM decryption of whole blocks: keystream first, then the recovered
    /// plaintext goes into `mac`.
    fn ccm_decrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        ccm_generic(self, mac, ctr, io, false);
    }

    /// The key-wrap function W (SP 800-38F algorithm 1, RFC 3394 2.2.1) in
    /// place: `a` is the integrity register, `r` the `n = r.len() / 8`
    /// semiblocks; 6n steps, step `t` XORs `t` into `a`.
    fn kw_wrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        let n = r.len() / 8;
        let mut b = [0u8; BLOCK_LEN];
        for j in 0..6 {
            for (i, ri) in r.chunks_exact_mut(8).enumerate() {
                b[..8].copy_from_slice(a);
                b[8..].copy_from_slice(ri);
                self.encrypt_blocks(InOut::in_place(&mut b));
                let t = (n * j + i + 1) as u64;
                for (x, (y, z)) in a.iter_mut().zip(b[..8].iter().zip(t.to_be_bytes())) {
                    *x = y ^ z;
                }
                ri.copy_from_slice(&b[8..]);
            }
        }
        b.zeroize();
    }

    /// The unwrapping function W^-1 (SP 800-38F algorithm 2), the steps of
    /// `kw_wrap` in reverse; the caller checks `a`.
    fn kw_unwrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        let n = r.len() / 8;
        let mut b = [0u8; BLOCK_LEN];
        for j in (0..6).rev() {
            for (i, ri) in r.chunks_exact_mut(8).enumerate().rev() {
                let t = (n * j + i + 1) as u64;
                for (x, (y, z)) in b[..8].iter_mut().zip(a.iter().zip(t.to_be_bytes())) {
                    *x = y ^ z;
                }
                b[8..].copy_from_slice(ri);
                self.decrypt_blocks(InOut::in_place(&mut b));
                a.copy_from_slice(&b[..8]);
                ri.copy_from_slice(&b[8..]);
            }
        }
        b.zeroize();
    }
}

/// `dst ^= src` over the first `src.len()` bytes.
#[inline]
pub(crate) fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// The generic CCM kernel: batches of blocks through `ctr_apply` (parallel)
/// and `cbc_mac` (serial), over a stack copy so that in-place calls MAC the
/// plaintext before it is overwritten (encrypt) or after it appears
/// (decrypt).
fn ccm_generic<K: MacKernels + ?Sized>(
    k: &K,
    mac: &mut Block,
    ctr: &mut Block,
    mut io: InOut<'_>,
    encrypt: bool,
) {
    let mut buf = [0u8; BATCH * BLOCK_LEN];
    let mut done = 0;
    while done < io.len() {
        let m = (io.len() - done).min(BATCH * BLOCK_LEN);
        let (_, rest) = io.reborrow().split_at(done);
        let (mut part, _) = rest.split_at(m);
        let chunk = &mut buf[..m];
        part.read_into(chunk);
        if encrypt {
            k.cbc_mac(mac, chunk);
        }
        k.ctr_apply(ctr, InOut::in_place(chunk));
        if !encrypt {
            k.cbc_mac(mac, chunk);
        }
        part.write_from(chunk);
        done += m;
    }
    buf.zeroize();
}
