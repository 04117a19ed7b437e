//! The per-message pieces of AES-GCM-SIV and XAES-256-GCM, by backend: a
//! fast key schedule for keys derived per message, the GCM-SIV counter mode
//! (RFC 8452: the first 32-bit word of the block counts, little-endian,
//! modulo 2^32), POLYVAL, and the GCM-SIV one-shot that a backend may fuse
//! from them.
//!
//! The engine's methods run these on the family's own key type (one match
//! per call), so a derived key is built in place as that type and never
//! goes through the large `Engine` enum.
//!
//! Where a short message's time goes: a GCM-SIV message pays, before its
//! first byte, for the key derivation (4 or 6 AES blocks), the schedule of
//! the derived key, the powers of the POLYVAL key, the hash, one more AES
//! block for the tag, and only then the CTR pass. Composed from the kernels
//! below (the generic one-shot), each piece is a call with its own setup
//! and the per-message keys are built, moved and wiped as whole key types;
//! a backend that fuses them ([`SivKernels::gcm_siv_seal`] and
//! `gcm_siv_open`) keeps the keys in registers and lets the schedule run
//! beside the hash. x86 does (`x86/siv.rs`); the soft and armv8 backends
//! take the composition.

use zeroize::Zeroize;

use super::gcm::GcmKernels;
#[cfg(feature = "std")]
use super::ghash_mul::ghash_mul_pow;
use super::inout::InOut;
use super::polyval::PolyvalKernels;
use super::wipe;
use crate::error::Result;
use crate::key::{Block, KeySize, BLOCK_LEN};

/// GCM-SIV's nonce length.
pub(crate) const SIV_NONCE_LEN: usize = 12;

/// Keystream blocks per batch in the generic counter mode (1 KiB).
const BATCH: usize = 64;

/// Each family implements these next to its key type, in its own folder.
pub(crate) trait SivKernels: GcmKernels + Sized {
    /// This family's POLYVAL key.
    type Polyval: PolyvalKernels;

    /// A key on the same backend from 16 or 32 raw bytes, for encryption
    /// only: a backend may leave out its decryption round keys.
    fn message_key(&self, key: &[u8]) -> Result<Self>;

    /// The POLYVAL key `h` for calls of about `blocks` blocks (more still
    /// work), on this key's backend.
    fn polyval_key(&self, h: &Block, blocks: usize) -> Self::Polyval;

    /// The GHASH key of a key derived per message (XAES), for one message
    /// that hashes `blocks` blocks in all (AAD, text and the length block).
    /// A backend may compute only the powers H^1..H^blocks: a correct GHASH
    /// of that many blocks never multiplies data by a higher one.
    fn message_ghash_key(&self, blocks: usize) -> Self::HKey {
        let _ = blocks;
        self.ghash_key()
    }

    /// XORs the keystream of counter blocks `tag | 0x80` in the last byte,
    /// the first 32 bits a little-endian counter wrapping mod 2^32, into `io`.
    fn ctr32le(&self, tag: &Block, io: InOut<'_>) {
        ctr32le_generic(self, tag, io)
    }

    /// Seals one GCM-SIV message (RFC 8452 section 4) under this
    /// key-generating key, of `size` (128 or 256 bits): derives the
    /// message's POLYVAL and AES keys from `nonce`, hashes `aad` and the
    /// plaintext that `io` reads, encrypts `io` and returns the tag.
    /// Lengths are the caller's to check.
    fn gcm_siv_seal(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
    ) -> Result<Block> {
        gcm_siv_seal_generic(self, size, nonce, aad, io)
    }

    /// Opens one GCM-SIV message: derives the keys as
    /// [`Self::gcm_siv_seal`], decrypts `io` with the received `tag` as the
    /// initial counter, and returns the tag of the plaintext it wrote;
    /// comparing the two (in constant time) and zeroing the output on a
    /// mismatch are the caller's.
    fn gcm_siv_open(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
        tag: &Block,
    ) -> Result<Block> {
        gcm_siv_open_generic(self, size, nonce, aad, io, tag)
    }
}

/// [`SivKernels::gcm_siv_seal`] on the generic parts (key derivation in one
/// ECB call, the family's POLYVAL and counter mode); also the path of a
/// family whose fused one-shot does not cover a key size (x86: AES-192).
pub(crate) fn gcm_siv_seal_generic<K: SivKernels>(
    k: &K,
    size: KeySize,
    nonce: &[u8; SIV_NONCE_LEN],
    aad: &[u8],
    io: InOut<'_>,
) -> Result<Block> {
    let m = Message::derive(k, size, nonce, aad.len().max(io.len()))?;
    let tag = m.tag(nonce, aad, io.input());
    m.aes.ctr32le(&tag, io);
    Ok(tag)
}

/// [`SivKernels::gcm_siv_open`] on the generic parts, as
/// [`gcm_siv_seal_generic`].
pub(crate) fn gcm_siv_open_generic<K: SivKernels>(
    k: &K,
    size: KeySize,
    nonce: &[u8; SIV_NONCE_LEN],
    aad: &[u8],
    mut io: InOut<'_>,
    tag: &Block,
) -> Result<Block> {
    let m = Message::derive(k, size, nonce, aad.len().max(io.len()))?;
    m.aes.ctr32le(tag, io.reborrow());
    // SAFETY: the counter mode wrote the whole output.
    Ok(m.tag(nonce, aad, unsafe { io.written_output() }))
}

/// The per-message keys, on the backend's own key type: the generic
/// one-shot's, and a call split over threads (`modes/parallel.rs`), whose
/// segments share one.
pub(crate) struct Message<K: SivKernels> {
    polyval: K::Polyval,
    aes: K,
    /// The POLYVAL key itself, for [`Message::times_h_pow`].
    h: Block,
}

impl<K: SivKernels> Drop for Message<K> {
    fn drop(&mut self) {
        wipe([&mut self.h], [0; BLOCK_LEN]);
    }
}

impl<K: SivKernels> Message<K> {
    /// Derives the message's POLYVAL and AES keys (RFC 8452 section 4):
    /// block i is AES(K, le32(i) || nonce), of which the first 8 bytes
    /// count; all blocks go through the backend in one call. `longest`
    /// (the longer of AAD and text) sizes the POLYVAL key's table.
    pub(crate) fn derive(
        k: &K,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        longest: usize,
    ) -> Result<Self> {
        // Two halves of POLYVAL key, then one per 8 bytes of AES key: 4, 5
        // (AES-192: a 24-byte message key, as OpenSSL and pyca derive it)
        // or 6 blocks.
        let count = match size {
            KeySize::Aes128 => 4,
            KeySize::Aes192 => 5,
            KeySize::Aes256 => 6,
        };
        let mut blocks = [0u8; 6 * BLOCK_LEN];
        for (i, b) in blocks.chunks_exact_mut(BLOCK_LEN).enumerate() {
            b[..4].copy_from_slice(&(i as u32).to_le_bytes());
            b[4..].copy_from_slice(nonce);
        }
        k.encrypt_blocks(InOut::in_place(&mut blocks[..count * BLOCK_LEN]));
        let mut halves = [0u8; 6 * 8];
        for (h, b) in halves
            .chunks_exact_mut(8)
            .zip(blocks.chunks_exact(BLOCK_LEN))
        {
            h.copy_from_slice(&b[..8]);
        }
        wipe([&mut blocks], [0; 6 * BLOCK_LEN]);
        let mut auth = [0u8; BLOCK_LEN];
        auth.copy_from_slice(&halves[..BLOCK_LEN]);
        let aes = k.message_key(&halves[BLOCK_LEN..count * 8]);
        wipe([&mut halves], [0; 6 * 8]);
        let polyval = k.polyval_key(&auth, longest.div_ceil(BLOCK_LEN));
        let m = aes.map(|aes| Message {
            polyval,
            aes,
            h: auth,
        });
        wipe([&mut auth], [0; BLOCK_LEN]);
        m
    }

    /// The tag (RFC 8452 section 4): AES of POLYVAL(aad, text, lengths)
    /// with the nonce XORed in and the top bit cleared.
    fn tag(&self, nonce: &[u8; SIV_NONCE_LEN], aad: &[u8], text: &[u8]) -> Block {
        let mut s = [0u8; BLOCK_LEN];
        self.polyval.update_padded(&mut s, aad);
        self.polyval.update_padded(&mut s, text);
        self.finish(nonce, aad.len(), text.len(), s)
    }

    /// The tag from `s`, POLYVAL of the associated data and the text (each
    /// zero-padded): the length block is hashed in, then as [`Self::tag`].
    pub(crate) fn finish(
        &self,
        nonce: &[u8; SIV_NONCE_LEN],
        aad_len: usize,
        text_len: usize,
        mut s: Block,
    ) -> Block {
        let mut lens = [0u8; BLOCK_LEN];
        lens[..8].copy_from_slice(&(aad_len as u64 * 8).to_le_bytes());
        lens[8..].copy_from_slice(&(text_len as u64 * 8).to_le_bytes());
        self.polyval.update_blocks(&mut s, &lens);
        for (x, n) in s.iter_mut().zip(nonce) {
            *x ^= n;
        }
        s[15] &= 0x7f;
        self.aes.encrypt_blocks(InOut::in_place(&mut s));
        s
    }

    #[cfg(feature = "std")]
    /// POLYVAL of `data` (its last partial block zero-padded) into `acc`.
    pub(crate) fn hash(&self, acc: &mut Block, data: &[u8]) {
        self.polyval.update_padded(acc, data);
    }

    #[cfg(feature = "std")]
    /// The counter mode from the counter block `ctr` (the top bit is set
    /// here, the first word counts; see [`SivKernels::ctr32le`]).
    pub(crate) fn ctr32le(&self, ctr: &Block, io: InOut<'_>) {
        self.aes.ctr32le(ctr, io);
    }

    #[cfg(feature = "std")]
    /// `acc` times H^m, as hashing m zero blocks leaves it: POLYVAL of
    /// consecutive segments is the first's sum times H^m (m: the second's
    /// blocks) XOR the second's, as for GHASH. POLYVAL is GHASH with the
    /// bytes of every block reversed and the key multiplied by x (RFC 8452
    /// appendix A), so this is the portable GHASH power product
    /// ([`ghash_mul_pow`]; constant time in `acc` and H) on those images.
    pub(crate) fn times_h_pow(&self, acc: &Block, m: u64) -> Block {
        let mut h = self.h;
        h.reverse();
        let v = u128::from_be_bytes(h);
        // mulX_GHASH: shift towards x^127, reducing a carry with
        // x^128 = x^7 + x^2 + x + 1 (0xe1 in the top byte); a mask, not a
        // branch, as H is secret.
        let mut hx = ((v >> 1) ^ ((0xe1u128 << 120) & 0u128.wrapping_sub(v & 1))).to_be_bytes();
        let mut x = *acc;
        x.reverse();
        let mut out = ghash_mul_pow(&x, &hx, m);
        out.reverse();
        wipe([&mut h, &mut hx, &mut x], [0; BLOCK_LEN]);
        out
    }
}

/// [`SivKernels::ctr32le`] from batches of counter blocks through
/// `encrypt_blocks`.
fn ctr32le_generic<K: GcmKernels>(k: &K, tag: &Block, mut io: InOut<'_>) {
    let mut ctr = *tag;
    ctr[15] |= 0x80;
    let mut c = u32::from_le_bytes([ctr[0], ctr[1], ctr[2], ctr[3]]);
    let mut ks = [0u8; BATCH * BLOCK_LEN];
    let mut done = 0;
    while done < io.len() {
        let n = (io.len() - done).min(BATCH * BLOCK_LEN);
        let m = n.div_ceil(BLOCK_LEN);
        for b in ks[..m * BLOCK_LEN].chunks_exact_mut(BLOCK_LEN) {
            b.copy_from_slice(&ctr);
            b[..4].copy_from_slice(&c.to_le_bytes());
            c = c.wrapping_add(1);
        }
        k.encrypt_blocks(InOut::in_place(&mut ks[..m * BLOCK_LEN]));
        let (_, rest) = io.reborrow().split_at(done);
        let (mut part, _) = rest.split_at(n);
        part.xor_from(&ks[..n]);
        done += n;
    }
    ks.zeroize();
}
