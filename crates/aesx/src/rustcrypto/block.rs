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

use aead::{Key, KeyInit, KeySizeUser};
use cipher::array::Array;

use super::shell::fastest;
use crate::backend::engine::PerFamily;
use crate::backend::kernels::family::Family;
use crate::backend::kernels::BlockKernels;
use crate::backend::{Backend, InOut};
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
    // SAFETY: `src` and `dst` are valid for `n` blocks of `T` for `'a` and
    // are the same memory or disjoint (this function's contract); `T` is a
    // 16-byte block (or an array of them) without padding, so that is
    // `n * 16` bytes, what `InOut::from_raw` asks.
    unsafe { InOut::from_raw(src.cast(), dst.cast(), n * BLOCK_LEN) }
}

// The two directions are written out: `cipher` names each trait's methods
// differently, and each is three one-line calls of one kernel.
impl<K: BlockKernels> BlockCipherEncBackend for Kernel<'_, K> {
    #[inline(always)]
    fn encrypt_block(&self, block: cipher::InOut<'_, '_, Block<Self>>) {
        let (s, d) = block.into_raw();
        // SAFETY: `s`/`d` are one block of one `inout::InOut`: valid for 16
        // bytes, the same memory or disjoint.
        self.0.encrypt_blocks(unsafe { io(s, d, 1) });
    }

    #[inline(always)]
    fn encrypt_par_blocks(&self, blocks: cipher::InOut<'_, '_, ParBlocks<Self>>) {
        let (s, d) = blocks.into_raw();
        // SAFETY: `s`/`d` are PAR_BLOCKS blocks of one `inout::InOut`: valid
        // for that many bytes, the same memory or disjoint.
        self.0
            .encrypt_blocks(unsafe { io(s, d, super::PAR_BLOCKS) });
    }

    #[inline(always)]
    fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        self.0.encrypt_blocks(buf_io(blocks));
    }
}

impl<K: BlockKernels> BlockCipherDecBackend for Kernel<'_, K> {
    #[inline(always)]
    fn decrypt_block(&self, block: cipher::InOut<'_, '_, Block<Self>>) {
        let (s, d) = block.into_raw();
        // SAFETY: `s`/`d` are one block of one `inout::InOut`: valid for 16
        // bytes, the same memory or disjoint.
        self.0.decrypt_blocks(unsafe { io(s, d, 1) });
    }

    #[inline(always)]
    fn decrypt_par_blocks(&self, blocks: cipher::InOut<'_, '_, ParBlocks<Self>>) {
        let (s, d) = blocks.into_raw();
        // SAFETY: `s`/`d` are PAR_BLOCKS blocks of one `inout::InOut`: valid
        // for that many bytes, the same memory or disjoint.
        self.0
            .decrypt_blocks(unsafe { io(s, d, super::PAR_BLOCKS) });
    }

    #[inline(always)]
    fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        self.0.decrypt_blocks(buf_io(blocks));
    }
}

/// All the blocks of an `InOutBuf` as our `InOut`.
#[inline(always)]
fn buf_io<'a>(blocks: InOutBuf<'a, 'a, Array<u8, U16>>) -> InOut<'a> {
    let n = blocks.len();
    let (s, d) = blocks.into_raw();
    // SAFETY: `s`/`d` are the `n` blocks of one `InOutBuf`: valid for
    // `n * 16` bytes for `'a`, the same memory or disjoint.
    unsafe { io(s, d, n) }
}

/// A mode crate's encryption closure, run on the engine's family key type
/// (one engine match per call, not per block).
struct EncWith<F>(F);

impl<F: BlockCipherEncClosure<BlockSize = U16>> PerFamily for EncWith<F> {
    type Output = ();

    #[inline]
    fn call<K: Family>(self, k: &K) {
        self.0.call(&Kernel(k))
    }
}

/// A mode crate's decryption closure, as [`EncWith`].
struct DecWith<F>(F);

impl<F: BlockCipherDecClosure<BlockSize = U16>> PerFamily for DecWith<F> {
    type Output = ();

    #[inline]
    fn call<K: Family>(self, k: &K) {
        self.0.call(&Kernel(k))
    }
}

/// Encryption for a key-size type holding `aes`: the backend closure runs
/// against the concrete kernel type, and the bulk entry points go to the
/// kernel over the whole buffer at once instead of in PAR_BLOCKS pieces.
#[inline]
fn encrypt_with(aes: &Aes, f: impl BlockCipherEncClosure<BlockSize = U16>) {
    aes.engine.per_family(EncWith(f))
}

#[inline]
fn decrypt_with(aes: &Aes, f: impl BlockCipherDecClosure<BlockSize = U16>) {
    aes.engine.per_family(DecWith(f))
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

/// One key size's three types: the full cipher and its encrypt-only and
/// decrypt-only halves, each a struct over one [`Aes`] with the RustCrypto
/// traits, as the `aes` crate has them. A macro because each type is its
/// own public struct (the names `aes` users port from) with the key size
/// as a typenum type in its trait impls, and `cipher`'s traits cannot be
/// implemented by a blanket impl over a local trait; every body is a call
/// of a function above.
macro_rules! block_cipher {
    ($name:ident, $enc:ident, $dec:ident, $ks:ty, $bytes:literal, $bits:literal) => {
        block_cipher! { @type $name, $ks, $bytes, concat!("AES-", $bits),
            concat!("AES-", $bits, " as a RustCrypto block cipher (`cipher` 0.5): a drop-in for `aes::",
                stringify!($name), "`, implementing `KeyInit`, `BlockCipherEncrypt` and ",
                "`BlockCipherDecrypt`, `BlockSizeUser`, `KeySizeUser` and `AlgorithmName` as it does.\n\n",
                "It works under `ctr`, `cbc`, `xts-mode`, `cmac`, `aes-kw` and any code generic over ",
                "`KeyInit + BlockCipherEncrypt + BlockCipherDecrypt`.\n\n",
                "`KeyInit::new` runs on the fastest backend this CPU has; `with_backend` picks one. ",
                "Round keys are zeroized on drop, and `Debug` prints only the backend.")
        }
        block_cipher! { @type $enc, $ks, $bytes, concat!("AES-", $bits, " encryption"),
            concat!("AES-", $bits, " encryption as a RustCrypto block cipher (`cipher` 0.5): a drop-in for `aes::",
                stringify!($enc), "`, implementing `KeyInit`, `BlockCipherEncrypt`, `BlockSizeUser`, ",
                "`KeySizeUser` and `AlgorithmName` as it does.\n\n",
                "For modes that only run the cipher forward (CTR, CFB, OFB, CBC encryption, GCM, CMAC). ",
                "It holds the same round keys as [`", stringify!($name), "`] (the key schedule is one ",
                "piece in aesx), so it saves no memory; it exists so that code naming it ports unchanged. ",
                "`From` converts it to the full cipher and to the decrypt-only half, as in `aes`.")
        }
        block_cipher! { @type $dec, $ks, $bytes, concat!("AES-", $bits, " decryption"),
            concat!("AES-", $bits, " decryption as a RustCrypto block cipher (`cipher` 0.5): a drop-in for `aes::",
                stringify!($dec), "`, implementing `KeyInit`, `BlockCipherDecrypt`, `BlockSizeUser`, ",
                "`KeySizeUser` and `AlgorithmName` as it does.\n\n",
                "For modes that only decrypt (CBC decryption). Like [`", stringify!($enc),
                "`], it holds the whole key schedule.")
        }
        block_cipher! { @enc $name }
        block_cipher! { @dec $name }
        block_cipher! { @enc $enc }
        block_cipher! { @dec $dec }

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
    (@type $name:ident, $ks:ty, $bytes:literal, $alg:expr, $doc:expr) => {
        #[doc = $doc]
        #[derive(Clone)]
        pub struct $name {
            aes: Aes,
        }

        impl $name {
            #[doc = concat!($alg, " on the named backend; an error if this machine cannot run it.")]
            pub fn with_backend(key: &[u8; $bytes], backend: Backend) -> Result<Self> {
                Ok(Self { aes: Aes::with_backend(key, backend)? })
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
                Self { aes: fastest(Aes::with_backend, key.as_slice()) }
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

        // The round keys zeroize themselves on drop.
        impl zeroize::ZeroizeOnDrop for $name {}

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl AlgorithmName for $name {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
    (@enc $name:ident) => {
        impl BlockCipherEncrypt for $name {
            #[inline]
            fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
                encrypt_with(&self.aes, f)
            }

            #[inline]
            fn encrypt_blocks_inout(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                self.aes.engine.encrypt_blocks(buf_io(blocks))
            }

            #[inline]
            fn encrypt_blocks(&self, blocks: &mut [Block<Self>]) {
                self.encrypt_blocks_inout(blocks.into());
            }
        }
    };
    (@dec $name:ident) => {
        impl BlockCipherDecrypt for $name {
            #[inline]
            fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
                decrypt_with(&self.aes, f)
            }

            #[inline]
            fn decrypt_blocks_inout(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                self.aes.engine.decrypt_blocks(buf_io(blocks))
            }

            #[inline]
            fn decrypt_blocks(&self, blocks: &mut [Block<Self>]) {
                self.decrypt_blocks_inout(blocks.into());
            }
        }
    };
}

block_cipher!(Aes128, Aes128Enc, Aes128Dec, U16, 16, "128");
block_cipher!(Aes192, Aes192Enc, Aes192Dec, U24, 24, "192");
block_cipher!(Aes256, Aes256Enc, Aes256Dec, U32, 32, "256");
