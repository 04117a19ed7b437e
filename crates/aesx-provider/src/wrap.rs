//! AES key wrap contexts with the semantics of OpenSSL 3's
//! `cipher_aes_wrp.c` over `wrap128.c`: KW (RFC 3394, SP 800-38F) and KWP
//! (RFC 5649), each also with the inverse cipher (the `-INV` names: AES
//! decryption as the wrapping permutation, SP 800-38F 5.1). One update
//! wraps or unwraps the whole input; the final adds nothing; an IV, when
//! given, replaces the default integrity check value (8 bytes for KW, 4
//! for KWP). The block function is aesx's, on its backend.

use aesx::{ct_eq, Aes, Backend, BLOCK_LEN};
use zeroize::Zeroize;

use crate::block::Fail;
use crate::counter::count_bytes;

/// `CRYPTO128_WRAP_MAX`.
const WRAP_MAX: usize = 1 << 31;
const DEFAULT_IV: [u8; 8] = [0xa6; 8];
const DEFAULT_AIV: [u8; 4] = [0xa6, 0x59, 0x59, 0xa6];

/// One wrap operation as OpenSSL's `PROV_AES_WRAP_CTX` holds it.
#[derive(Clone)]
pub struct WrapCtx {
    pub keylen: usize,
    /// KWP (`-WRAP-PAD`): a 4-byte IV and any input length.
    pub pad: bool,
    /// The inverse cipher (`-INV`).
    inverse: bool,
    enc: bool,
    key: Option<Aes>,
    iv: [u8; 8],
    iv_set: bool,
    backend: Backend,
}

impl WrapCtx {
    pub fn new(keylen: usize, pad: bool, inverse: bool, backend: Backend) -> Self {
        WrapCtx {
            keylen,
            pad,
            inverse,
            enc: true,
            key: None,
            iv: [0; 8],
            iv_set: false,
            backend,
        }
    }

    /// The IV length: 4 (KWP) or 8 (KW).
    pub fn ivlen(&self) -> usize {
        if self.pad {
            4
        } else {
            8
        }
    }

    /// The IV as given (`iv`, `updated-iv`), zero before one is.
    pub fn iv(&self) -> &[u8] {
        &self.iv[..self.ivlen()]
    }

    /// `aes_wrap_init`.
    pub fn init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>, enc: bool) -> Result<(), Fail> {
        self.enc = enc;
        if let Some(iv) = iv {
            if iv.len() != self.ivlen() {
                return Err(Fail::InvalidIvLength);
            }
            self.iv[..iv.len()].copy_from_slice(iv);
            self.iv_set = true;
        }
        if let Some(key) = key {
            if key.len() != self.keylen {
                return Err(Fail::InvalidKeyLength);
            }
            self.key =
                Some(Aes::with_backend(key, self.backend).map_err(|_| Fail::InvalidKeyLength)?);
        }
        Ok(())
    }

    /// The output length of an update of `inl` bytes (`out == NULL`):
    /// wrapping, the input rounded up to 8 (KWP) plus 8; unwrapping, at
    /// most the input less 8.
    pub fn out_len(&self, inl: usize) -> Result<usize, Fail> {
        self.check(inl)?;
        Ok(if self.enc {
            inl.div_ceil(8) * 8 + 8
        } else {
            inl - 8
        })
    }

    fn check(&self, inl: usize) -> Result<(), Fail> {
        if inl == 0 || inl > i32::MAX as usize {
            return Err(Fail::Unsupported);
        }
        if !self.enc && (inl < 16 || !inl.is_multiple_of(8)) {
            return Err(Fail::Unsupported);
        }
        if !self.pad && !inl.is_multiple_of(8) {
            return Err(Fail::Unsupported);
        }
        Ok(())
    }

    /// Wraps or unwraps `input` into `out` (at least [`out_len`] bytes);
    /// returns the bytes written. A failed unwrap leaves `out` zeroed.
    ///
    /// [`out_len`]: Self::out_len
    pub fn update(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize, Fail> {
        let need = self.out_len(input.len())?;
        if out.len() < need {
            return Err(Fail::OutputBufferTooSmall);
        }
        let Some(aes) = &self.key else {
            return Err(Fail::NoKeySet);
        };
        // The wrapping permutation: AES encryption, or decryption for the
        // inverse cipher; unwrapping runs the other one.
        let fwd = self.enc != self.inverse;
        let kw = Kw { aes, fwd };
        let iv = self.iv_set.then_some(&self.iv);
        let r = match (self.enc, self.pad) {
            (true, false) => kw.wrap(iv.unwrap_or(&DEFAULT_IV), input, out),
            (false, false) => kw.unwrap(iv.unwrap_or(&DEFAULT_IV), input, out),
            (true, true) => kw.wrap_pad(icv(iv), input, out),
            (false, true) => kw.unwrap_pad(icv(iv), input, out),
        };
        match r {
            Some(n) => {
                count_bytes(input.len());
                Ok(n)
            }
            None => {
                out[..need].zeroize();
                Err(Fail::BadDecrypt)
            }
        }
    }
}

fn icv(iv: Option<&[u8; 8]>) -> [u8; 4] {
    match iv {
        Some(iv) => [iv[0], iv[1], iv[2], iv[3]],
        None => DEFAULT_AIV,
    }
}

/// The wrapping primitive over one AES key and direction.
struct Kw<'a> {
    aes: &'a Aes,
    /// The permutation is AES encryption (else decryption).
    fwd: bool,
}

impl Kw<'_> {
    fn block(&self, b: &mut [u8; BLOCK_LEN]) {
        if self.fwd {
            self.aes.encrypt_block(b);
        } else {
            self.aes.decrypt_block(b);
        }
    }

    /// W (RFC 3394 2.2.1): 8 bytes of integrity value, then the input;
    /// the input is a multiple of 8, at least 16.
    fn wrap(&self, iv: &[u8; 8], input: &[u8], out: &mut [u8]) -> Option<usize> {
        let n = input.len();
        if !n.is_multiple_of(8) || !(16..=WRAP_MAX).contains(&n) {
            return None;
        }
        out[8..8 + n].copy_from_slice(input);
        let mut b = [0u8; BLOCK_LEN];
        b[..8].copy_from_slice(iv);
        let mut t: u64 = 1;
        for _ in 0..6 {
            for r in out[8..8 + n].chunks_exact_mut(8) {
                b[8..].copy_from_slice(r);
                self.block(&mut b);
                for (a, x) in b[..8].iter_mut().zip(t.to_be_bytes()) {
                    *a ^= x;
                }
                r.copy_from_slice(&b[8..]);
                t += 1;
            }
        }
        out[..8].copy_from_slice(&b[..8]);
        b.zeroize();
        Some(n + 8)
    }

    /// W^-1 without the check: the recovered integrity value and the
    /// input less 8 bytes written to `out`.
    fn unwrap_raw(&self, input: &[u8], out: &mut [u8]) -> Option<[u8; 8]> {
        let n = input.len().checked_sub(8)?;
        if !n.is_multiple_of(8) || !(16..=WRAP_MAX).contains(&n) {
            return None;
        }
        let mut b = [0u8; BLOCK_LEN];
        b[..8].copy_from_slice(&input[..8]);
        out[..n].copy_from_slice(&input[8..]);
        let mut t = 6 * (n as u64 / 8);
        for _ in 0..6 {
            for r in out[..n].chunks_exact_mut(8).rev() {
                for (a, x) in b[..8].iter_mut().zip(t.to_be_bytes()) {
                    *a ^= x;
                }
                b[8..].copy_from_slice(r);
                self.block(&mut b);
                r.copy_from_slice(&b[8..]);
                t -= 1;
            }
        }
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        b.zeroize();
        Some(a)
    }

    fn unwrap(&self, iv: &[u8; 8], input: &[u8], out: &mut [u8]) -> Option<usize> {
        let got = self.unwrap_raw(input, out)?;
        ct_eq(&got, iv).then_some(input.len() - 8)
    }

    /// KWP (RFC 5649 4.1): the alternative IV (ICV, length), zero padding
    /// to a multiple of 8; a single block is one AES call.
    fn wrap_pad(&self, icv: [u8; 4], input: &[u8], out: &mut [u8]) -> Option<usize> {
        let n = input.len();
        if n == 0 || n >= WRAP_MAX {
            return None;
        }
        let padded = n.div_ceil(8) * 8;
        let mut aiv = [0u8; 8];
        aiv[..4].copy_from_slice(&icv);
        aiv[4..].copy_from_slice(&(n as u32).to_be_bytes());
        if padded == 8 {
            let mut b = [0u8; BLOCK_LEN];
            b[..8].copy_from_slice(&aiv);
            b[8..8 + n].copy_from_slice(input);
            self.block(&mut b);
            out[..16].copy_from_slice(&b);
            b.zeroize();
            return Some(16);
        }
        let mut buf = vec![0u8; padded];
        buf[..n].copy_from_slice(input);
        let r = self.wrap(&aiv, &buf, out);
        buf.zeroize();
        r
    }

    fn unwrap_pad(&self, icv: [u8; 4], input: &[u8], out: &mut [u8]) -> Option<usize> {
        let inl = input.len();
        if !inl.is_multiple_of(8) || !(16..WRAP_MAX).contains(&inl) {
            return None;
        }
        let blocks = inl / 8 - 1;
        let (aiv, padded) = if inl == 16 {
            let mut b = [0u8; BLOCK_LEN];
            b.copy_from_slice(input);
            self.block(&mut b);
            out[..8].copy_from_slice(&b[8..]);
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[..8]);
            b.zeroize();
            (a, 8)
        } else {
            (self.unwrap_raw(input, out)?, inl - 8)
        };
        let len = u32::from_be_bytes([aiv[4], aiv[5], aiv[6], aiv[7]]) as usize;
        let ok = ct_eq(&aiv[..4], &icv)
            && 8 * (blocks - 1) < len
            && len <= 8 * blocks
            && out[len..padded].iter().fold(0u8, |acc, &b| acc | b) == 0;
        ok.then_some(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn run(ctx: &mut WrapCtx, input: &[u8]) -> Result<Vec<u8>, Fail> {
        let mut out = vec![0u8; ctx.out_len(input.len())?];
        let n = ctx.update(input, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    #[test]
    fn rfc3394_and_rfc5649_vectors_both_ways() {
        // RFC 3394 4.1 and RFC 5649 6 (192-bit KEK, 20 and 7 bytes).
        let cases = [
            (
                "000102030405060708090A0B0C0D0E0F",
                "00112233445566778899AABBCCDDEEFF",
                "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5",
                false,
            ),
            (
                "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8",
                "c37b7e6492584340bed12207808941155068f738",
                "138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a",
                true,
            ),
            (
                "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8",
                "466f7250617369",
                "afbeb0f07dfbf5419200f2ccb50bb24f",
                true,
            ),
        ];
        for (k, p, c, pad) in cases {
            let (k, p, c) = (hex(k), hex(p), hex(c));
            let mut e = WrapCtx::new(k.len(), pad, false, Backend::Soft);
            e.init(Some(&k), None, true).unwrap();
            assert_eq!(run(&mut e, &p).unwrap(), c);
            let mut d = WrapCtx::new(k.len(), pad, false, Backend::Soft);
            d.init(Some(&k), None, false).unwrap();
            assert_eq!(run(&mut d, &c).unwrap(), p);
            let mut bad = c.clone();
            bad[3] ^= 1;
            assert_eq!(run(&mut d, &bad), Err(Fail::BadDecrypt));
            // The inverse cipher round-trips too, to other bytes.
            let mut ei = WrapCtx::new(k.len(), pad, true, Backend::Soft);
            ei.init(Some(&k), None, true).unwrap();
            let ci = run(&mut ei, &p).unwrap();
            assert_ne!(ci, c);
            let mut di = WrapCtx::new(k.len(), pad, true, Backend::Soft);
            di.init(Some(&k), None, false).unwrap();
            assert_eq!(run(&mut di, &ci).unwrap(), p);
        }
    }

    #[test]
    fn lengths_and_ivs() {
        let k = [1u8; 16];
        let mut e = WrapCtx::new(16, false, false, Backend::Soft);
        e.init(Some(&k), None, true).unwrap();
        assert_eq!(
            e.out_len(12),
            Err(Fail::Unsupported),
            "KW takes multiples of 8"
        );
        assert_eq!(e.out_len(0), Err(Fail::Unsupported));
        assert_eq!(run(&mut e, &[0u8; 8]), Err(Fail::BadDecrypt), "KW needs 16");
        assert_eq!(
            e.init(None, Some(&[0u8; 4]), true),
            Err(Fail::InvalidIvLength)
        );
        e.init(None, Some(&[5u8; 8]), true).unwrap();
        let c = run(&mut e, &[7u8; 16]).unwrap();
        let mut d = WrapCtx::new(16, false, false, Backend::Soft);
        d.init(Some(&k), None, false).unwrap();
        assert_eq!(run(&mut d, &c), Err(Fail::BadDecrypt), "other IV");
        d.init(None, Some(&[5u8; 8]), false).unwrap();
        assert_eq!(run(&mut d, &c).unwrap(), [7u8; 16]);
        assert_eq!(d.out_len(20), Err(Fail::Unsupported));
    }
}
