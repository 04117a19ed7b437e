//! RustCrypto's `cipher` 0.5 and `aead` 0.6 traits on aesx's engine, so that
//! code written against the `aes`, `ctr`, `cbc`, `xts-mode` and `aes-gcm`
//! crates runs on aesx by changing only its `use` lines.
//!
//! The types here are thin wrappers over [`Aes`](crate::Aes),
//! [`Gcm`](crate::Gcm), [`Ccm`](crate::Ccm), [`GcmSiv`](crate::GcmSiv)
//! and [`Xaes256Gcm`](crate::Xaes256Gcm) with the sizes in the type, as
//! the traits want.
//! Multi-block calls go to the backends' bulk kernels in one call per
//! buffer (or per batch of [`PAR_BLOCKS`] blocks when a mode crate drives
//! the cipher through `cipher`'s backend closures), never block by block.

mod block;
mod ccm;
mod gcm;
mod shell;
mod siv;

pub use aead::Key;
pub use block::{
    Aes128, Aes128Dec, Aes128Enc, Aes192, Aes192Dec, Aes192Enc, Aes256, Aes256Dec, Aes256Enc,
    AesCipher,
};
pub use ccm::{Aes128Ccm, Aes192Ccm, Aes256Ccm, AesCcm, CcmKeySize, CcmNonceSize, CcmTagSize};
pub use gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm, AesGcm, GcmTagSize, Nonce};
pub use siv::{Aes128GcmSiv, Aes256GcmSiv, AesGcmSiv, GcmSivCipher};

/// Blocks a mode crate (`ctr`, `cbc`) hands the cipher at once through
/// `encrypt_par_blocks`: 512 bytes, enough to fill every backend's widest
/// loop (the bitsliced soft backend takes 16 blocks per batch, VAES-512
/// 16 or 32 per iteration) while staying small on the caller's stack.
pub(crate) const PAR_BLOCKS: usize = 32;

#[cfg(test)]
mod tests {
    use cipher::{BlockCipherEncrypt, BlockModeDecrypt, InnerIvInit, StreamCipher};
    use std::vec;

    use crate::backend::kernels::trace;
    use crate::backend::Backend;

    /// The mode crates reach the bulk kernels once per PAR_BLOCKS blocks
    /// (and a whole-buffer ECB call once), not once per block: counted on
    /// each x86 level's ECB kernels (per thread, so other tests do not
    /// interfere).
    #[test]
    fn mode_crates_call_the_kernels_in_batches() {
        let mut checked = 0;
        // Every hardware backend counts its ECB kernels; the soft one does not.
        for b in Backend::available().iter() {
            if b == Backend::Soft {
                continue;
            }
            let enc = std::format!("{}::encrypt_blocks", b.name());
            let dec = std::format!("{}::decrypt_blocks", b.name());
            let count = |name: &str| trace::count(name).unwrap();
            let aes = super::Aes128::with_backend(&[1; 16], b).unwrap();
            let mut data = vec![0u8; 16 * 1024];
            let blocks = data.len() / 16;

            let before = count(&enc);
            let core = ctr::CtrCore::<_, ctr::flavors::Ctr128BE>::inner_iv_init(
                aes.clone(),
                &[2; 16].into(),
            );
            ctr::Ctr128BE::from_core(core).apply_keystream(&mut data);
            assert_eq!(
                count(&enc) - before,
                (blocks / super::PAR_BLOCKS) as u64,
                "{b} ctr"
            );

            let before = count(&dec);
            let mut cbc = cbc::Decryptor::inner_iv_init(aes.clone(), &[3; 16].into());
            let (chunks, _) = cipher::array::Array::slice_as_chunks_mut(&mut data);
            cbc.decrypt_blocks(chunks);
            assert_eq!(
                count(&dec) - before,
                (blocks / super::PAR_BLOCKS) as u64,
                "{b} cbc"
            );

            let before = count(&enc);
            let (chunks, _) = cipher::array::Array::slice_as_chunks_mut(&mut data);
            aes.encrypt_blocks(chunks);
            assert_eq!(count(&enc) - before, 1, "{b} ecb");
            checked += 1;
        }
        std::eprintln!("checked {checked} hardware backends");
    }
}
