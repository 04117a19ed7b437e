//! The per-message pieces of AES-GCM-SIV and XAES-256-GCM, by backend: a
//! fast key schedule for the derived keys and the GCM-SIV counter mode
//! (RFC 8452: the first 32-bit word of the block counts, little-endian).

use zeroize::Zeroize;

use super::inout::InOut;
use super::kernels::BlockKernels;
use super::{with_engine, Backend, Engine};
use crate::error::Result;
use crate::key::{Block, RoundKeys, BLOCK_LEN};

/// Keystream blocks per batch in the generic counter mode (1 KiB).
const BATCH: usize = 64;

/// An engine for a key derived per message (16 or 32 bytes), on `backend`.
pub(crate) fn message_engine(backend: Backend, key: &[u8]) -> Result<Engine> {
    #[cfg(target_arch = "x86_64")]
    if matches!(
        backend,
        Backend::Aesni | Backend::Vaes256 | Backend::Vaes512
    ) {
        return super::x86::siv::expand_key(backend, key).map(Engine::X86);
    }
    Engine::new(backend, &RoundKeys::expand(key)?)
}

/// XORs the keystream of counter blocks `tag | 0x80` in the last byte, the
/// first 32 bits a little-endian counter wrapping mod 2^32, into `io`.
pub(crate) fn ctr32le(engine: &Engine, tag: &Block, io: InOut<'_>) {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::X86(k) => super::x86::siv::ctr32le(k, tag, io),
        #[allow(unreachable_patterns)]
        _ => with_engine!(engine, k => ctr32le_generic(k, tag, io)),
    }
}

/// [`ctr32le`] from batches of counter blocks through `encrypt_blocks`.
fn ctr32le_generic<K: BlockKernels>(k: &K, tag: &Block, mut io: InOut<'_>) {
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
