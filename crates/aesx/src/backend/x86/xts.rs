//! XTS on the x86 backends: one `match` on the key's level per call.

use super::{xts_aesni, xts_vaes256, xts_vaes512, Level, X86Aes};
use crate::backend::inout::InOut;
use crate::backend::xts_kernels::{sectors_generic, XtsKernels};
use crate::key::Block;

impl XtsKernels for X86Aes {
    fn xts_encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        // SAFETY: an X86Aes of a level exists only if detection confirmed
        // that level's CPU features, which are all each kernel enables.
        unsafe {
            match self.level {
                Level::Aesni => xts_aesni::xts_encrypt(self, tweak, io),
                Level::Vaes256 => xts_vaes256::xts_encrypt(self, tweak, io),
                Level::Vaes512 => xts_vaes512::xts_encrypt(self, tweak, io),
            }
        }
    }

    fn xts_decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        // SAFETY: as in xts_encrypt.
        unsafe {
            match self.level {
                Level::Aesni => xts_aesni::xts_decrypt(self, tweak, io),
                Level::Vaes256 => xts_vaes256::xts_decrypt(self, tweak, io),
                Level::Vaes512 => xts_vaes512::xts_decrypt(self, tweak, io),
            }
        }
    }

    fn xts_encrypt_sectors(&self, tk: &Self, size: usize, first: u128, io: InOut<'_>) {
        match self.level {
            // SAFETY: level Vaes512 proves the CPU features; the mode passes
            // a sector size that is a non-zero multiple of 16 dividing the
            // length, and both keys come from one XTS key (same size).
            Level::Vaes512 => unsafe { xts_vaes512::xts_sectors(self, tk, true, size, first, io) },
            _ => sectors_generic(tk, size, first, io, |t, part| self.xts_encrypt(t, part)),
        }
    }

    fn xts_decrypt_sectors(&self, tk: &Self, size: usize, first: u128, io: InOut<'_>) {
        match self.level {
            // SAFETY: as in xts_encrypt_sectors.
            Level::Vaes512 => unsafe { xts_vaes512::xts_sectors(self, tk, false, size, first, io) },
            _ => sectors_generic(tk, size, first, io, |t, part| self.xts_decrypt(t, part)),
        }
    }
}
