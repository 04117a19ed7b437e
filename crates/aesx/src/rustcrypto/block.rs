//! `Aes128`, `Aes192`, `Aes256`: the block cipher under `cipher`'s traits,
//! and their encrypt-only and decrypt-only halves (`Aes128Enc`, `Aes128Dec`,
//! ...) as the `aes` crate has them.

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

mod sealed {
    pub trait Sealed {}
}

/// The AES block cipher types that name the key size of the generic AEADs
/// ([`AesGcm<Aes, NonceSize>`](super::AesGcm), [`AesCcm<Aes, M,
/// N>`](super::AesCcm), [`AesGcmSiv<Aes>`](super::AesGcmSiv)), as
/// `aes_gcm::AesGcm<aes::Aes128, U12>` takes the
/// `aes` crate's type: [`Aes128`], [`Aes192`], [`Aes256`] and their
/// encrypt-only halves. The AEAD runs on aesx's own kernels; the type only
/// picks the key length. Implemented only here.
pub trait AesCipher: sealed::Sealed {
    /// The key length in bytes as a typenum type.
    type KeySize: cipher::array::ArraySize;
}

/// The docs of one key size's types: the full cipher, and its encrypt-only
/// and decrypt-only halves.
macro_rules! half_doc {
    ($bits:literal, $what:literal, $aes:expr, $traits:literal) => {
        concat!(
            "AES-",
            $bits,
            $what,
            " as a RustCrypto block cipher (`cipher` 0.5): a drop-in for `aes::",
            $aes,
            "`, implementing `KeyInit`, ",
            $traits,
            ", `BlockSizeUser`, `KeySizeUser` and ",
            "`AlgorithmName` as it does."
        )
    };
}

macro_rules! block_cipher {
    ($name:ident, $enc:ident, $dec:ident, $ks:ty, $bytes:literal, $bits:literal) => {
        keyed! {
            #[doc = half_doc!($bits, "", stringify!($name),
                "`BlockCipherEncrypt` and `BlockCipherDecrypt`")]
            ///
            /// It works under `ctr`, `cbc`, `xts-mode`, `cmac`, `aes-kw` and
            /// any code generic over `KeyInit + BlockCipherEncrypt +
            /// BlockCipherDecrypt`.
            ///
            /// `KeyInit::new` runs on the fastest backend this CPU has;
            /// `with_backend` picks one. Round keys are zeroized on drop, and
            /// `Debug` prints only the backend.
            $name { aes: Aes }, $ks, $bytes, concat!("AES-", $bits)
        }

        keyed! {
            #[doc = half_doc!($bits, " encryption", stringify!($enc), "`BlockCipherEncrypt`")]
            ///
            /// For modes that only run the cipher forward (CTR, CFB, OFB,
            /// CBC encryption, GCM, CMAC). It holds the same round keys as
            #[doc = concat!("[`", stringify!($name), "`] (the key schedule is one piece in aesx),")]
            /// so it saves no memory; it exists so that code naming it ports
            /// unchanged. `From` converts it to the full cipher and to the
            /// decrypt-only half, as in `aes`.
            $enc { aes: Aes }, $ks, $bytes, concat!("AES-", $bits, " encryption")
        }

        keyed! {
            #[doc = half_doc!($bits, " decryption", stringify!($dec), "`BlockCipherDecrypt`")]
            ///
            /// For modes that only decrypt (CBC decryption). Like
            #[doc = concat!("[`", stringify!($enc), "`], it holds the whole key schedule.")]
            $dec { aes: Aes }, $ks, $bytes, concat!("AES-", $bits, " decryption")
        }

        block_direction!($name, BlockCipherEncrypt: encrypt_with_backend(BlockCipherEncClosure),
            encrypt_blocks_inout, encrypt_blocks => encrypt_blocks);
        block_direction!($name, BlockCipherDecrypt: decrypt_with_backend(BlockCipherDecClosure),
            decrypt_blocks_inout, decrypt_blocks => decrypt_blocks);
        block_direction!($enc, BlockCipherEncrypt: encrypt_with_backend(BlockCipherEncClosure),
            encrypt_blocks_inout, encrypt_blocks => encrypt_blocks);
        block_direction!($dec, BlockCipherDecrypt: decrypt_with_backend(BlockCipherDecClosure),
            decrypt_blocks_inout, decrypt_blocks => decrypt_blocks);

        block_common!($name, $enc, $dec);

        impl sealed::Sealed for $name {}
        impl AesCipher for $name {
            type KeySize = $ks;
        }
        impl sealed::Sealed for $enc {}
        impl AesCipher for $enc {
            type KeySize = $ks;
        }

        // The conversions `aes` has: an encrypt-only key becomes the full
        // cipher or the decrypt-only half (the round keys are shared, so
        // this is a copy).
        impl From<&$enc> for $name {
            fn from(enc: &$enc) -> Self {
                Self { aes: enc.aes.clone() }
            }
        }

        impl From<$enc> for $name {
            fn from(enc: $enc) -> Self {
                Self::from(&enc)
            }
        }

        impl From<&$enc> for $dec {
            fn from(enc: &$enc) -> Self {
                Self { aes: enc.aes.clone() }
            }
        }

        impl From<$enc> for $dec {
            fn from(enc: $enc) -> Self {
                Self::from(&enc)
            }
        }
    };
}

/// `BlockSizeUser` and `AlgorithmName` (the type's own name, as `aes`
/// writes it) for each type.
macro_rules! block_common {
    ($($name:ident),*) => {
        $(
            impl BlockSizeUser for $name {
                type BlockSize = U16;
            }

            impl AlgorithmName for $name {
                fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(stringify!($name))
                }
            }
        )*
    };
}

block_cipher!(Aes128, Aes128Enc, Aes128Dec, U16, 16, "128");
block_cipher!(Aes192, Aes192Enc, Aes192Dec, U24, 24, "192");
block_cipher!(Aes256, Aes256Enc, Aes256Dec, U32, 32, "256");
