//! `Aes128`, `Aes192`, `Aes256`: the block cipher under `cipher`'s traits.

use core::fmt;

use cipher::consts::{U16, U24, U32};
use cipher::{
    AlgorithmName, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOutBuf,
    ParBlocks, ParBlocksSizeUser,
};

use crate::backend::{with_engine, BlockKernels, InOut};
use crate::key::BLOCK_LEN;
use crate::modes::block::Aes;

use super::shell::keyed;

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

/// One direction of `Kernel` as `cipher`'s backend trait `$tr`: one block,
/// PAR_BLOCKS blocks and a tail, each one call of the kernel's `$kernel`.
macro_rules! kernel_backend {
    ($tr:ident: $block:ident, $par:ident, $tail:ident => $kernel:ident) => {
        impl<K: BlockKernels> $tr for Kernel<'_, K> {
            #[inline(always)]
            fn $block(&self, block: cipher::InOut<'_, '_, Block<Self>>) {
                let (s, d) = block.into_raw();
                // SAFETY: one block from one `inout::InOut` (see `io`).
                self.0.$kernel(unsafe { io(s, d, 1) });
            }

            #[inline(always)]
            fn $par(&self, blocks: cipher::InOut<'_, '_, ParBlocks<Self>>) {
                let (s, d) = blocks.into_raw();
                // SAFETY: PAR_BLOCKS blocks from one `inout::InOut` (see `io`).
                self.0.$kernel(unsafe { io(s, d, super::PAR_BLOCKS) });
            }

            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                let n = blocks.len();
                let (s, d) = blocks.into_raw();
                // SAFETY: `n` blocks from one `InOutBuf` (see `io`).
                self.0.$kernel(unsafe { io(s, d, n) });
            }
        }
    };
}

kernel_backend!(BlockCipherEncBackend:
    encrypt_block, encrypt_par_blocks, encrypt_tail_blocks => encrypt_blocks);
kernel_backend!(BlockCipherDecBackend:
    decrypt_block, decrypt_par_blocks, decrypt_tail_blocks => decrypt_blocks);

/// One direction of a key-size type as `cipher`'s `$tr`: the backend
/// closure runs against the concrete kernel type, and the bulk entry points
/// go to the kernel over the whole buffer at once instead of in PAR_BLOCKS
/// pieces.
macro_rules! block_direction {
    (
        $name:ident, $tr:ident: $with:ident($closure:ident),
        $inout:ident, $blocks:ident => $kernel:ident
    ) => {
        impl $tr for $name {
            #[inline]
            fn $with(&self, f: impl $closure<BlockSize = U16>) {
                with_engine!(&self.aes.engine, k => f.call(&Kernel(k)))
            }

            #[inline]
            fn $inout(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                let n = blocks.len();
                let (s, d) = blocks.into_raw();
                // SAFETY: `n` blocks from one `InOutBuf` (see `io`).
                let io = unsafe { io(s, d, n) };
                with_engine!(&self.aes.engine, k => k.$kernel(io));
            }

            #[inline]
            fn $blocks(&self, blocks: &mut [Block<Self>]) {
                self.$inout(blocks.into());
            }
        }
    };
}

macro_rules! block_cipher {
    ($name:ident, $ks:ty, $bytes:literal, $bits:literal) => {
        keyed! {
            #[doc = concat!("AES-", $bits, " as a RustCrypto block cipher (`cipher` 0.5): a")]
            #[doc = concat!("drop-in for `aes::Aes", $bits, "` under `ctr`, `cbc`, `xts-mode` and")]
            /// any code generic over `KeyInit + BlockCipherEncrypt + BlockCipherDecrypt`.
            ///
            /// `KeyInit::new` runs on the fastest backend this CPU has;
            /// `with_backend` picks one. Round keys are zeroized on drop, and
            /// `Debug` prints only the backend.
            $name { aes: Aes }, $ks, $bytes, concat!("AES-", $bits)
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        block_direction!($name, BlockCipherEncrypt: encrypt_with_backend(BlockCipherEncClosure),
            encrypt_blocks_inout, encrypt_blocks => encrypt_blocks);
        block_direction!($name, BlockCipherDecrypt: decrypt_with_backend(BlockCipherDecClosure),
            decrypt_blocks_inout, decrypt_blocks => decrypt_blocks);

        impl AlgorithmName for $name {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!("Aes", $bits))
            }
        }
    };
}

block_cipher!(Aes128, U16, 16, "128");
block_cipher!(Aes192, U24, 24, "192");
block_cipher!(Aes256, U32, 32, "256");
