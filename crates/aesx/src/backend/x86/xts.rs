//! XTS on the x86 backends: one `match` on the key's level per call.

use super::key::{Level, X86Aes};
use super::{xts_aesni, xts_vaes};
use crate::backend::kernels::inout::InOut;
use zeroize::Zeroize;

use crate::backend::kernels::xts::{stealing_head, XtsKernels};
use crate::key::Block;

impl X86Aes {
    /// Sectors on the AES-NI level: eight sector numbers are
    /// encrypted together with the tweak key (eight AES chains in flight,
    /// instead of one sector's tweak at a time), then each sector runs
    /// through this level's XTS kernel.
    fn xts_sectors_by8(
        &self,
        tk: &Self,
        encrypt: bool,
        size: usize,
        first: u128,
        mut io: InOut<'_>,
    ) {
        let count = io.len() / size;
        let mut tweaks = [[0u8; 16]; 8];
        let mut s = 0;
        while s < count {
            let m = (count - s).min(8);
            for (j, t) in tweaks.iter_mut().enumerate() {
                // Slots past `m` are encrypted too and then ignored.
                *t = first.wrapping_add((s + j) as u128).to_le_bytes();
            }
            let _aesni = tk.level.aesni();
            // SAFETY: `_aesni`, the token every level holds, proves AES-NI
            // and SSE4.1.
            unsafe { xts_aesni::encrypt_tweaks(tk, &mut tweaks) };
            for (j, t) in tweaks.iter_mut().enumerate().take(m) {
                let (_, rest) = io.reborrow().split_at((s + j) * size);
                let (part, _) = rest.split_at(size);
                if encrypt {
                    self.xts_encrypt(t, part);
                } else {
                    self.xts_decrypt(t, part);
                }
            }
            s += m;
        }
        // The encrypted tweaks are the whitening secrets of these sectors.
        tweaks.zeroize();
    }
}

impl X86Aes {
    /// [`XtsKernels::xts_encrypt`] (`ENC`) or `xts_decrypt`.
    #[inline]
    fn xts<const ENC: bool>(&self, tweak: &mut Block, io: InOut<'_>) {
        // SAFETY: the matched level's token (made only by detection) proves
        // that level's CPU features, which are all each kernel enables.
        unsafe {
            match self.level {
                Level::Aesni(_) => xts_aesni::xts::<ENC>(self, tweak, io),
                Level::Vaes256(t) => xts_vaes::xts_256::<ENC>(t, self, tweak, io),
                Level::Vaes512(t) => xts_vaes::xts_512::<ENC>(t, self, tweak, io),
            }
        }
    }

    /// [`XtsKernels::xts_encrypt_sectors`] (`ENC`) or
    /// `xts_decrypt_sectors`.
    #[inline]
    fn xts_sectors<const ENC: bool>(&self, tk: &Self, size: usize, first: u128, io: InOut<'_>) {
        match self.level {
            // SAFETY: the Vaes256 token proves the CPU features; the mode passes
            // a sector size that is a non-zero multiple of 16 dividing the
            // length, and both keys come from one XTS key (same size).
            Level::Vaes256(t) => unsafe {
                xts_vaes::sectors_256::<ENC>(t, self, tk, size, first, io)
            },
            // SAFETY: the Vaes512 token proves the CPU features; sector size
            // and keys as for Vaes256.
            Level::Vaes512(t) => unsafe {
                xts_vaes::sectors_512::<ENC>(t, self, tk, size, first, io)
            },
            Level::Aesni(_) => self.xts_sectors_by8(tk, ENC, size, first, io),
        }
    }

    /// A data unit with ciphertext stealing: the pair's first block cipher
    /// before the bulk call when the unit is short enough to find its
    /// tweak directly (`xts_aesni::steal_first`), so that only the second
    /// is serial after it; the pair in registers either way.
    fn stealing<const ENC: bool>(&self, tweak: &mut Block, io: InOut<'_>) {
        let head_len = stealing_head(io.len());
        let (head, tail) = io.split_at(head_len);
        let mut first: Block = [0; 16];
        // SAFETY: every X86Aes level implies AES-NI, SSE4.1 and PCLMULQDQ;
        // `tail` is the last whole block and the partial one.
        let early =
            unsafe { xts_aesni::steal_first::<ENC>(self, tweak, head.blocks(), &tail, &mut first) };
        self.xts::<ENC>(tweak, head);
        // SAFETY: every level implies AES-NI, SSE4.1 and PCLMULQDQ; `tail`
        // is the pair; `tweak` is now T_{m-1}.
        unsafe { xts_aesni::steal_finish::<ENC>(self, tweak, early.then_some(&first), tail) };
        first.zeroize();
    }
}

impl XtsKernels for X86Aes {
    fn xts_encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        self.xts::<true>(tweak, io)
    }

    fn xts_decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        self.xts::<false>(tweak, io)
    }

    fn xts_encrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        self.stealing::<true>(tweak, io)
    }

    fn xts_decrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        self.stealing::<false>(tweak, io)
    }

    fn xts_encrypt_sectors(&self, tk: &Self, size: usize, first: u128, io: InOut<'_>) {
        self.xts_sectors::<true>(tk, size, first, io)
    }

    fn xts_decrypt_sectors(&self, tk: &Self, size: usize, first: u128, io: InOut<'_>) {
        self.xts_sectors::<false>(tk, size, first, io)
    }
}
