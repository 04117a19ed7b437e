//! `Aes128`, `Aes192`, `Aes256`: the block cipher under `cipher`'s traits.

use core::fmt;

use cipher::consts::{U16, U24, U32};
use cipher::{
    AlgorithmName, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOutBuf, Key,
    KeyInit, KeySizeUser, ParBlocks, ParBlocksSizeUser,
};

use crate::backend::{with_engine, Backend, BlockKernels, InOut};
use crate::error::Result;
use crate::key::BLOCK_LEN;
use crate::modes::block::Aes;

// The par-blocks size is a type; keep it in step with the documented constant.
type ParSize = U32;
const _: () = assert!(<ParSize as cipher::typenum::Unsigned>::USIZE == super::PAR_BLOCKS);

/// One backend's key as `cipher`'s encryption/decryption backend: the
/// closure a mode crate passes in runs against the concrete kernel type, so
/// the backend `match` happens once per call, not per block.
struct Kernel<'a, K>(&'a K);

impl<K> BlockSizeUser for Kernel<'_, K> {
    type BlockSize = U16;
}

impl<K> ParBlocksSizeUser for Kernel<'_, K> {
    type ParBlocksSize = ParSize;
}

/// Our `InOut` over `n` blocks of a `cipher` in/out pair.
///
/// # Safety
///
/// `src`/`dst` come from one `inout::InOut`/`InOutBuf` of `n` blocks that
/// lives for `'a`: that type guarantees the two are valid for `n * 16`
/// bytes and are either the same memory or disjoint, which is exactly our
/// `InOut`'s contract.
#[inline(always)]
unsafe fn io<'a, T>(src: *const T, dst: *mut T, n: usize) -> InOut<'a> {
    // SAFETY: forwarded from the caller (see above); `T` is a 16-byte block
    // (or an array of them) without padding, so the byte length is n * 16.
    unsafe { InOut::from_raw(src.cast(), dst.cast(), n * BLOCK_LEN) }
}

impl<K: BlockKernels> BlockCipherEncBackend for Kernel<'_, K> {
    #[inline(always)]
    fn encrypt_block(&self, block: cipher::InOut<'_, '_, Block<Self>>) {
        let (s, d) = block.into_raw();
        // SAFETY: one block from one `inout::InOut` (see `io`).
        self.0.encrypt_blocks(unsafe { io(s, d, 1) });
    }

    #[inline(always)]
    fn encrypt_par_blocks(&self, blocks: cipher::InOut<'_, '_, ParBlocks<Self>>) {
        let (s, d) = blocks.into_raw();
        // SAFETY: PAR_BLOCKS blocks from one `inout::InOut` (see `io`).
        self.0
            .encrypt_blocks(unsafe { io(s, d, super::PAR_BLOCKS) });
    }

    #[inline(always)]
    fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        let n = blocks.len();
        let (s, d) = blocks.into_raw();
        // SAFETY: `n` blocks from one `InOutBuf` (see `io`).
        self.0.encrypt_blocks(unsafe { io(s, d, n) });
    }
}

impl<K: BlockKernels> BlockCipherDecBackend for Kernel<'_, K> {
    #[inline(always)]
    fn decrypt_block(&self, block: cipher::InOut<'_, '_, Block<Self>>) {
        let (s, d) = block.into_raw();
        // SAFETY: one block from one `inout::InOut` (see `io`).
        self.0.decrypt_blocks(unsafe { io(s, d, 1) });
    }

    #[inline(always)]
    fn decrypt_par_blocks(&self, blocks: cipher::InOut<'_, '_, ParBlocks<Self>>) {
        let (s, d) = blocks.into_raw();
        // SAFETY: PAR_BLOCKS blocks from one `inout::InOut` (see `io`).
        self.0
            .decrypt_blocks(unsafe { io(s, d, super::PAR_BLOCKS) });
    }

    #[inline(always)]
    fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        let n = blocks.len();
        let (s, d) = blocks.into_raw();
        // SAFETY: `n` blocks from one `InOutBuf` (see `io`).
        self.0.decrypt_blocks(unsafe { io(s, d, n) });
    }
}

macro_rules! block_cipher {
    ($name:ident, $ks:ty, $bytes:literal, $bits:literal) => {
        #[doc = concat!("AES-", $bits, " as a RustCrypto block cipher (`cipher` 0.5): a")]
        #[doc = concat!("drop-in for `aes::Aes", $bits, "` under `ctr`, `cbc`, `xts-mode` and")]
        /// any code generic over `KeyInit + BlockCipherEncrypt + BlockCipherDecrypt`.
        ///
        /// `KeyInit::new` runs on the fastest backend this CPU has;
        /// `with_backend` picks one. Round keys are zeroized on drop, and
        /// `Debug` prints only the backend.
        #[derive(Clone)]
        pub struct $name {
            aes: Aes,
        }

        impl $name {
            #[doc = concat!("AES-", $bits, " on the named backend; an error if this machine")]
            /// cannot run it.
            pub fn with_backend(key: &[u8; $bytes], backend: Backend) -> Result<Self> {
                Ok(Self {
                    aes: Aes::with_backend(key, backend)?,
                })
            }

            /// The backend this key runs on.
            pub fn backend(&self) -> Backend {
                self.aes.backend()
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl KeyInit for $name {
            #[inline]
            fn new(key: &Key<Self>) -> Self {
                Self {
                    aes: fastest_aes(key.as_slice()),
                }
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl BlockCipherEncrypt for $name {
            #[inline]
            fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
                with_engine!(&self.aes.engine, k => f.call(&Kernel(k)))
            }

            // The bulk entry points go to the kernel over the whole buffer
            // at once instead of in PAR_BLOCKS pieces.
            #[inline]
            fn encrypt_blocks_inout(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                let n = blocks.len();
                let (s, d) = blocks.into_raw();
                // SAFETY: `n` blocks from one `InOutBuf` (see `io`).
                let io = unsafe { io(s, d, n) };
                with_engine!(&self.aes.engine, k => k.encrypt_blocks(io));
            }

            #[inline]
            fn encrypt_blocks(&self, blocks: &mut [Block<Self>]) {
                self.encrypt_blocks_inout(blocks.into());
            }
        }

        impl BlockCipherDecrypt for $name {
            #[inline]
            fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
                with_engine!(&self.aes.engine, k => f.call(&Kernel(k)))
            }

            #[inline]
            fn decrypt_blocks_inout(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                let n = blocks.len();
                let (s, d) = blocks.into_raw();
                // SAFETY: `n` blocks from one `InOutBuf` (see `io`).
                let io = unsafe { io(s, d, n) };
                with_engine!(&self.aes.engine, k => k.decrypt_blocks(io));
            }

            #[inline]
            fn decrypt_blocks(&self, blocks: &mut [Block<Self>]) {
                self.decrypt_blocks_inout(blocks.into());
            }
        }

        impl AlgorithmName for $name {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!("Aes", $bits))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // Never print key material.
                f.debug_struct(stringify!($name))
                    .field("backend", &self.aes.backend())
                    .finish_non_exhaustive()
            }
        }

        // The engine's round keys zeroize themselves when dropped.
        impl zeroize::ZeroizeOnDrop for $name {}
    };
}

block_cipher!(Aes128, U16, 16, "128");
block_cipher!(Aes192, U24, 24, "192");
block_cipher!(Aes256, U32, 32, "256");

/// The key on the fastest backend. `KeyInit::new` cannot fail: the key
/// length is fixed by the type and the fastest backend is one this machine
/// has, so an error here is a bug in aesx, not a caller's mistake.
pub(super) fn fastest_aes(key: &[u8]) -> Aes {
    match Aes::with_backend(key, Backend::fastest()) {
        Ok(aes) => aes,
        Err(e) => panic!("aesx: the fastest backend refused a valid key: {e}"),
    }
}
