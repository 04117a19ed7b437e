//! ECB, CBC and CTR contexts with OpenSSL's generic cipher semantics
//! (`providers/implementations/ciphers/ciphercommon.c` of OpenSSL 3): the
//! block update that buffers a partial block and, when decrypting with
//! padding, holds back the last whole block; the final that pads or
//! unpads; the one-shot `cipher` call; the stream update of CTR with its
//! `num` and updated counter block.
//!
//! Nothing here sees a raw pointer: the FFI layer (`cipher.rs`) checks
//! OpenSSL's pointers and lengths and hands over an [`Io`].

use aesx::{Aes, Backend, Cbc, Ctr, BLOCK_LEN};

use crate::counter::count_bytes;
use ahead::CtrStream;

mod ahead;
mod tls;
pub use tls::TLS_MAC_MAX;

/// The mode of a block context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
}

/// Why an operation failed (OpenSSL's reason, for tests and messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    NoKeySet,
    InvalidKeyLength,
    InvalidIvLength,
    OutputBufferTooSmall,
    WrongFinalBlockLength,
    BadDecrypt,
    /// A request the provider does not carry out (e.g. a partial block
    /// through the one-shot `cipher` call of ECB/CBC).
    Unsupported,
}

/// Input and output of one call: two distinct buffers, or one buffer that
/// holds the input at its start and takes the output there too (OpenSSL's
/// in-place calls, `out == in`).
pub enum Io<'a> {
    Split { src: &'a [u8], dst: &'a mut [u8] },
    InPlace(&'a mut [u8]),
}

impl Io<'_> {
    fn input(&self, off: usize, len: usize) -> &[u8] {
        match self {
            Io::Split { src, .. } => &src[off..off + len],
            Io::InPlace(buf) => &buf[off..off + len],
        }
    }

    fn write(&mut self, off: usize, bytes: &[u8]) {
        match self {
            Io::Split { dst, .. } => dst[off..off + bytes.len()].copy_from_slice(bytes),
            Io::InPlace(buf) => buf[off..off + bytes.len()].copy_from_slice(bytes),
        }
    }
}

/// What one block-mode update does: take `fill` bytes into the partial
/// block, cipher it (`flush`), cipher `bulk` bytes straight through, keep
/// `trailing` bytes; `outl` bytes come out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub fill: usize,
    pub flush: bool,
    pub bulk: usize,
    pub trailing: usize,
    pub outl: usize,
}

/// `ossl_cipher_generic_block_update`'s arithmetic for `inl` more bytes
/// with `bufsz` already buffered.
pub fn plan_block_update(bufsz: usize, enc: bool, pad: bool, inl: usize) -> Plan {
    let mut rest = inl;
    let mut bufsz = bufsz;
    let mut fill = 0;
    let mut bulk = if bufsz != 0 {
        fill = (BLOCK_LEN - bufsz).min(rest);
        rest -= fill;
        bufsz += fill;
        rest & !(BLOCK_LEN - 1)
    } else {
        rest & !(BLOCK_LEN - 1)
    };
    let flush = bufsz == BLOCK_LEN && (enc || rest > 0 || !pad);
    let mut outl = if flush { BLOCK_LEN } else { 0 };
    if bulk > 0 && !enc && pad && bulk == rest {
        // Hold back the last whole block: it may be the padded one.
        bulk -= BLOCK_LEN;
    }
    outl += bulk;
    Plan {
        fill,
        flush,
        bulk,
        trailing: rest - bulk,
        outl,
    }
}

/// The key, ready for its mode.
// CTR's variant is larger by the keystream it makes ahead; boxing it would
// cost an indirection on every short update, which it exists to avoid.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Keyed {
    Ecb(Aes),
    Cbc(Cbc),
    Ctr(CtrStream),
}

/// One ECB, CBC or CTR operation as OpenSSL's `PROV_CIPHER_CTX` holds it.
#[derive(Clone)]
pub struct BlockCtx {
    pub mode: Mode,
    pub keylen: usize,
    enc: bool,
    pad: bool,
    num: u32,
    key: Option<Keyed>,
    /// The chaining value (CBC) or the initial counter block of `Ctr`.
    iv: [u8; BLOCK_LEN],
    /// The IV as given (`iv` parameter).
    oiv: [u8; BLOCK_LEN],
    iv_set: bool,
    buf: [u8; BLOCK_LEN],
    bufsz: usize,
    backend: Backend,
    /// `tls-version`: nonzero makes every update one TLS record (see
    /// [`tls`]).
    tls_version: u32,
    /// `tls-mac-size`: the MAC a decrypted record ends with.
    tls_mac_size: usize,
    /// The MAC of the last decrypted record (`tls-mac`).
    tls_mac: [u8; TLS_MAC_MAX],
}

impl Drop for BlockCtx {
    fn drop(&mut self) {
        // The keys zeroize themselves; the buffered block is data.
        self.buf = [0; BLOCK_LEN];
    }
}

impl BlockCtx {
    /// A fresh context: no key, zero IV, padding on.
    pub fn new(mode: Mode, keylen: usize, backend: Backend) -> Self {
        BlockCtx {
            mode,
            keylen,
            enc: true,
            pad: true,
            num: 0,
            key: None,
            iv: [0; BLOCK_LEN],
            oiv: [0; BLOCK_LEN],
            iv_set: false,
            buf: [0; BLOCK_LEN],
            bufsz: 0,
            backend,
            tls_version: 0,
            tls_mac_size: 0,
            tls_mac: [0; TLS_MAC_MAX],
        }
    }

    pub fn ivlen(&self) -> usize {
        match self.mode {
            Mode::Ecb => 0,
            Mode::Cbc | Mode::Ctr => BLOCK_LEN,
        }
    }

    pub fn block_size(&self) -> usize {
        match self.mode {
            Mode::Ecb | Mode::Cbc => BLOCK_LEN,
            Mode::Ctr => 1,
        }
    }

    /// `cipher_generic_init_internal`: a new key and/or IV (either may be
    /// absent), the direction, and the buffered state reset.
    pub fn init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>, enc: bool) -> Result<(), Fail> {
        self.num = 0;
        self.bufsz = 0;
        self.enc = enc;
        if let Some(iv) = iv.filter(|_| self.mode != Mode::Ecb) {
            if iv.len() != self.ivlen() {
                return Err(Fail::InvalidIvLength);
            }
            self.iv.copy_from_slice(iv);
            self.oiv.copy_from_slice(iv);
            self.iv_set = true;
        } else if self.iv_set && self.mode == Mode::Cbc {
            self.iv = self.oiv;
        }
        if self.mode == Mode::Ctr {
            // A CTR context keeps counting from where it stands unless a
            // new IV is given (OpenSSL keeps ctx->iv, the next counter).
            if iv.is_none() {
                self.iv = self.updated_iv();
            }
        }
        let aes = match key {
            Some(key) => {
                if key.len() != self.keylen {
                    return Err(Fail::InvalidKeyLength);
                }
                Some(Aes::with_backend(key, self.backend).map_err(|_| Fail::InvalidKeyLength)?)
            }
            None => match &self.key {
                Some(Keyed::Ctr(c)) => Some(c.ctr().aes().clone()),
                _ => None,
            },
        };
        if let Some(aes) = aes {
            self.key = Some(match self.mode {
                Mode::Ecb => Keyed::Ecb(aes),
                Mode::Cbc => Keyed::Cbc(Cbc::from(aes)),
                Mode::Ctr => Keyed::Ctr(CtrStream::new(
                    Ctr::from_aes(aes, &self.iv).map_err(|_| Fail::InvalidIvLength)?,
                )),
            });
        }
        Ok(())
    }

    pub fn padding(&self) -> bool {
        self.pad
    }

    pub fn set_padding(&mut self, pad: bool) {
        self.pad = pad;
    }

    /// The `num` parameter: CTR's offset into the current keystream block;
    /// for ECB and CBC a value OpenSSL stores and reports back.
    pub fn num(&self) -> u32 {
        match &self.key {
            Some(Keyed::Ctr(c)) => (c.position() % BLOCK_LEN as u128) as u32,
            _ => self.num,
        }
    }

    /// Sets `num`. For CTR it moves within the keystream block last
    /// generated, as OpenSSL's `ctx->num` does; a value that would read
    /// keystream nobody generated yet is refused.
    pub fn set_num(&mut self, num: u32) -> Result<(), Fail> {
        match &mut self.key {
            Some(Keyed::Ctr(c)) => {
                let n = num as u128;
                if n >= BLOCK_LEN as u128 {
                    return Err(Fail::Unsupported);
                }
                let started = c.position().div_ceil(BLOCK_LEN as u128);
                if n == 0 {
                    c.seek(started * BLOCK_LEN as u128);
                } else if started == 0 {
                    return Err(Fail::Unsupported);
                } else {
                    c.seek((started - 1) * BLOCK_LEN as u128 + n);
                }
                Ok(())
            }
            _ if self.mode == Mode::Ctr && num != 0 => Err(Fail::Unsupported),
            _ => {
                self.num = num;
                Ok(())
            }
        }
    }

    /// The IV as given at the last init with one (`iv` parameter).
    pub fn original_iv(&self) -> &[u8] {
        &self.oiv[..self.ivlen()]
    }

    /// The running IV (`updated-iv`): CBC's chaining value, CTR's next
    /// counter block.
    pub fn updated_iv(&self) -> [u8; BLOCK_LEN] {
        match &self.key {
            Some(Keyed::Ctr(c)) => {
                let blocks = c.position().div_ceil(BLOCK_LEN as u128);
                u128::from_be_bytes(self.iv)
                    .wrapping_add(blocks)
                    .to_be_bytes()
            }
            _ => self.iv,
        }
    }

    pub fn key_set(&self) -> bool {
        self.key.is_some()
    }

    /// Ciphers `len` whole blocks (or any length for CTR) from input offset
    /// `in_off` to output offset `out_off` (`out_off >= in_off` in place).
    fn crypt(&mut self, io: &mut Io<'_>, in_off: usize, out_off: usize, len: usize) {
        if len == 0 {
            return;
        }
        let enc = self.enc;
        let iv = &mut self.iv;
        let key = self.key.as_mut().expect("checked by the caller");
        // The lengths are whole blocks by construction (the plan and the
        // one-shot checks), so the aesx calls cannot fail.
        let r = match io {
            Io::Split { src, dst } => {
                let (s, d) = (&src[in_off..in_off + len], &mut dst[out_off..out_off + len]);
                match key {
                    Keyed::Ecb(a) if enc => a.encrypt_blocks_to(s, d),
                    Keyed::Ecb(a) => a.decrypt_blocks_to(s, d),
                    Keyed::Cbc(c) if enc => c.encrypt_chained_to(iv, s, d),
                    Keyed::Cbc(c) => c.decrypt_chained_to(iv, s, d),
                    Keyed::Ctr(c) => {
                        c.apply(&mut Io::Split { src: s, dst: d }, len);
                        Ok(())
                    }
                }
            }
            Io::InPlace(buf) => {
                let b = &mut buf[in_off..in_off + len];
                let r = match key {
                    Keyed::Ecb(a) if enc => a.encrypt_blocks(b),
                    Keyed::Ecb(a) => a.decrypt_blocks(b),
                    Keyed::Cbc(c) if enc => c.encrypt_chained(iv, b),
                    Keyed::Cbc(c) => c.decrypt_chained(iv, b),
                    Keyed::Ctr(c) => {
                        c.apply(&mut Io::InPlace(b), len);
                        Ok(())
                    }
                };
                if out_off != in_off {
                    buf.copy_within(in_off..in_off + len, out_off);
                }
                r
            }
        };
        debug_assert!(r.is_ok());
        count_bytes(len);
    }

    /// Ciphers the 16-byte buffer in place.
    fn crypt_buf(&mut self) {
        let mut block = self.buf;
        self.crypt(&mut Io::InPlace(&mut block), 0, 0, BLOCK_LEN);
        self.buf = block;
    }

    /// The output length of an update of `inl` bytes, or why it fails.
    pub fn update_len(&self, inl: usize) -> Result<usize, Fail> {
        if !self.key_set() {
            return Err(Fail::NoKeySet);
        }
        if inl > isize::MAX as usize - BLOCK_LEN {
            // No buffer is that large: a negative int cast by the caller.
            return Err(Fail::OutputBufferTooSmall);
        }
        Ok(match self.mode {
            Mode::Ctr => inl,
            _ => plan_block_update(self.bufsz, self.enc, self.pad, inl).outl,
        })
    }

    /// An update (`OSSL_FUNC_cipher_update`): `io` holds `inl` input bytes
    /// and room for [`update_len`](Self::update_len) output bytes (in
    /// place: the larger of the two). Returns the output length.
    pub fn update(&mut self, mut io: Io<'_>, inl: usize) -> Result<usize, Fail> {
        if let Some(Keyed::Ctr(c)) = &mut self.key {
            // The common streaming case, kept short: every CTR length goes
            // through, nothing is buffered here.
            c.apply(&mut io, inl);
            count_bytes(inl);
            return Ok(inl);
        }
        // Whole blocks with nothing buffered or held back: straight through,
        // as the plan below would do it, without its copies.
        let whole = self.bufsz == 0 && inl.is_multiple_of(BLOCK_LEN) && (self.enc || !self.pad);
        if whole && self.key_set() {
            self.crypt(&mut io, 0, 0, inl);
            return Ok(inl);
        }
        self.update_len(inl)?;
        let plan = plan_block_update(self.bufsz, self.enc, self.pad, inl);
        let filled = plan.fill;
        let start = self.bufsz;
        self.buf[start..start + filled].copy_from_slice(io.input(0, filled));
        self.bufsz += filled;
        let mut trailing = [0u8; BLOCK_LEN];
        let tail_off = filled + plan.bulk;
        trailing[..plan.trailing].copy_from_slice(io.input(tail_off, plan.trailing));
        let mut out_off = 0;
        if plan.flush {
            self.crypt_buf();
            self.bufsz = 0;
            out_off = BLOCK_LEN;
        }
        self.crypt(&mut io, filled, out_off, plan.bulk);
        if plan.flush {
            let block = self.buf;
            io.write(0, &block);
        }
        self.buf[self.bufsz..self.bufsz + plan.trailing]
            .copy_from_slice(&trailing[..plan.trailing]);
        self.bufsz += plan.trailing;
        Ok(plan.outl)
    }

    /// The final (`OSSL_FUNC_cipher_final`): the last block into `out`
    /// (16 bytes of room are enough), its length returned.
    pub fn finalize(&mut self, out: &mut [u8]) -> Result<usize, Fail> {
        if !self.key_set() {
            return Err(Fail::NoKeySet);
        }
        if self.mode == Mode::Ctr {
            return Ok(0);
        }
        if self.enc {
            if self.pad {
                let p = (BLOCK_LEN - self.bufsz) as u8;
                self.buf[self.bufsz..].fill(p);
                self.bufsz = BLOCK_LEN;
            } else if self.bufsz == 0 {
                return Ok(0);
            } else if self.bufsz != BLOCK_LEN {
                return Err(Fail::WrongFinalBlockLength);
            }
            if out.len() < BLOCK_LEN {
                return Err(Fail::OutputBufferTooSmall);
            }
            self.crypt_buf();
            out[..BLOCK_LEN].copy_from_slice(&self.buf);
            self.bufsz = 0;
            return Ok(BLOCK_LEN);
        }
        if self.bufsz != BLOCK_LEN {
            if self.bufsz == 0 && !self.pad {
                return Ok(0);
            }
            return Err(Fail::WrongFinalBlockLength);
        }
        self.crypt_buf();
        let mut n = BLOCK_LEN;
        if self.pad {
            let p = self.buf[BLOCK_LEN - 1] as usize;
            let mut bad = (p == 0) | (p > BLOCK_LEN);
            let p = p.clamp(1, BLOCK_LEN);
            for &b in &self.buf[BLOCK_LEN - p..] {
                bad |= b as usize != p;
            }
            if bad {
                return Err(Fail::BadDecrypt);
            }
            n = BLOCK_LEN - p;
        }
        if out.len() < n {
            return Err(Fail::OutputBufferTooSmall);
        }
        out[..n].copy_from_slice(&self.buf[..n]);
        self.bufsz = 0;
        Ok(n)
    }

    /// The one-shot `cipher` call (`EVP_Cipher`): whole blocks for ECB and
    /// CBC (a partial block is refused), anything for CTR; no buffering.
    pub fn cipher(&mut self, mut io: Io<'_>, inl: usize) -> Result<usize, Fail> {
        if !self.key_set() {
            return Err(Fail::NoKeySet);
        }
        if self.mode != Mode::Ctr && !inl.is_multiple_of(BLOCK_LEN) {
            return Err(Fail::Unsupported);
        }
        self.crypt(&mut io, 0, 0, inl);
        Ok(inl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(mode: Mode, key: &[u8], iv: &[u8], enc: bool, pad: bool) -> BlockCtx {
        let mut c = BlockCtx::new(mode, key.len(), Backend::Soft);
        c.set_padding(pad);
        c.init(Some(key), Some(iv), enc).unwrap();
        c
    }

    /// Feeds `input` in the pieces `cuts` makes, split or in place, and
    /// returns the output, or the failing step.
    fn run(
        c: &mut BlockCtx,
        input: &[u8],
        cuts: &[usize],
        in_place: bool,
    ) -> Result<Vec<u8>, Fail> {
        let mut out = Vec::new();
        let mut start = 0;
        for &end in cuts.iter().chain(core::iter::once(&input.len())) {
            let piece = &input[start..end];
            let n = c.update_len(piece.len())?;
            let got = if in_place {
                let mut buf = piece.to_vec();
                buf.resize(piece.len().max(n), 0);
                let k = c.update(Io::InPlace(&mut buf), piece.len())?;
                buf.truncate(k);
                buf
            } else {
                let mut dst = vec![0u8; n];
                let k = c.update(
                    Io::Split {
                        src: piece,
                        dst: &mut dst,
                    },
                    piece.len(),
                )?;
                dst.truncate(k);
                dst
            };
            assert_eq!(got.len(), n);
            out.extend_from_slice(&got);
            start = end;
        }
        let mut last = [0u8; BLOCK_LEN];
        let k = c.finalize(&mut last)?;
        out.extend_from_slice(&last[..k]);
        Ok(out)
    }

    #[test]
    fn plan_holds_back_the_last_block_when_decrypting_with_padding() {
        let p = plan_block_update(0, false, true, 32);
        assert_eq!((p.bulk, p.trailing, p.outl, p.flush), (16, 16, 16, false));
        let p = plan_block_update(16, false, true, 0);
        assert_eq!((p.flush, p.outl), (false, 0));
        let p = plan_block_update(16, false, true, 1);
        assert_eq!((p.flush, p.outl, p.trailing), (true, 16, 1));
        let p = plan_block_update(16, false, false, 0);
        assert_eq!((p.flush, p.outl), (true, 16));
        let p = plan_block_update(5, true, true, 40);
        assert_eq!(
            (p.fill, p.flush, p.bulk, p.trailing, p.outl),
            (11, true, 16, 13, 32)
        );
        let p = plan_block_update(5, true, true, 3);
        assert_eq!(
            (p.fill, p.flush, p.bulk, p.trailing, p.outl),
            (3, false, 0, 0, 0)
        );
    }

    #[test]
    fn cbc_every_split_matches_one_shot_both_ways() {
        let key = [7u8; 16];
        let iv = [9u8; 16];
        let cbc = Cbc::with_backend(&key, Backend::Soft).unwrap();
        for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 48, 50] {
            let pt: Vec<u8> = (0..len as u8).collect();
            let want = cbc.encrypt_vec(&iv, &pt, aesx::Padding::Pkcs7).unwrap();
            for cut in 0..=len {
                for in_place in [false, true] {
                    let mut e = ctx(Mode::Cbc, &key, &iv, true, true);
                    assert_eq!(
                        run(&mut e, &pt, &[cut], in_place).unwrap(),
                        want,
                        "len {len} cut {cut}"
                    );
                    let mut d = ctx(Mode::Cbc, &key, &iv, false, true);
                    let cut2 = cut.min(want.len());
                    assert_eq!(run(&mut d, &want, &[cut2], in_place).unwrap(), pt);
                }
            }
        }
    }

    #[test]
    fn no_padding_refuses_partial_final_blocks() {
        let key = [1u8; 24];
        let mut e = ctx(Mode::Ecb, &key, &[], true, false);
        assert_eq!(
            run(&mut e, &[0u8; 20], &[], false),
            Err(Fail::WrongFinalBlockLength)
        );
        let mut e = ctx(Mode::Ecb, &key, &[], true, false);
        assert_eq!(run(&mut e, &[0u8; 32], &[3], true).unwrap().len(), 32);
        let mut d = ctx(Mode::Cbc, &key, &[0u8; 16], false, true);
        assert_eq!(
            run(&mut d, &[0u8; 20], &[], false),
            Err(Fail::WrongFinalBlockLength)
        );
        let mut d = ctx(Mode::Cbc, &key, &[0u8; 16], false, true);
        assert_eq!(
            run(&mut d, &[], &[], false),
            Err(Fail::WrongFinalBlockLength)
        );
        let mut d = ctx(Mode::Cbc, &key, &[0u8; 16], false, false);
        assert_eq!(run(&mut d, &[], &[], false), Ok(vec![]));
    }

    #[test]
    fn bad_padding_is_bad_decrypt() {
        let key = [3u8; 32];
        let mut e = ctx(Mode::Ecb, &key, &[], true, false);
        let mut block = [0u8; 16];
        block[15] = 17;
        let ct = run(&mut e, &block, &[], false).unwrap();
        let mut d = ctx(Mode::Ecb, &key, &[], false, true);
        assert_eq!(run(&mut d, &ct, &[], false), Err(Fail::BadDecrypt));
        block[15] = 2;
        block[14] = 3;
        let mut e = ctx(Mode::Ecb, &key, &[], true, false);
        let ct = run(&mut e, &block, &[], false).unwrap();
        let mut d = ctx(Mode::Ecb, &key, &[], false, true);
        assert_eq!(run(&mut d, &ct, &[], false), Err(Fail::BadDecrypt));
    }

    #[test]
    fn ctr_streams_reports_num_and_next_counter() {
        let key = [5u8; 16];
        let mut iv = [0xffu8; 16];
        iv[0] = 0;
        let mut c = ctx(Mode::Ctr, &key, &iv, true, true);
        let mut whole = ctx(Mode::Ctr, &key, &iv, true, true);
        let pt = [0x42u8; 40];
        let want = run(&mut whole, &pt, &[], false).unwrap();
        assert_eq!(run(&mut c, &pt, &[1, 17, 18], true).unwrap(), want);
        assert_eq!(c.num(), 8);
        let mut next = iv;
        next[0] = 1;
        next[1..].fill(0);
        next[15] = 2; // three blocks started: 0x00ff..ff + 3
        assert_eq!(c.updated_iv(), next);
        // Back to byte 3 of the block last generated, as OpenSSL's num.
        c.set_num(3).unwrap();
        let mut again = [0x42u8; 5];
        c.update(Io::InPlace(&mut again), 5).unwrap();
        assert_eq!(&again, &want[35..40]);
        assert_eq!(c.set_num(16), Err(Fail::Unsupported));
    }

    #[test]
    fn wrong_lengths_and_missing_keys_are_refused() {
        let mut c = BlockCtx::new(Mode::Cbc, 16, Backend::Soft);
        assert_eq!(
            c.init(Some(&[0u8; 24]), None, true),
            Err(Fail::InvalidKeyLength)
        );
        assert_eq!(
            c.init(None, Some(&[0u8; 12]), true),
            Err(Fail::InvalidIvLength)
        );
        assert_eq!(c.update_len(16), Err(Fail::NoKeySet));
        c.init(Some(&[0u8; 16]), None, false).unwrap();
        assert_eq!(c.update_len(usize::MAX), Err(Fail::OutputBufferTooSmall));
        let mut c = BlockCtx::new(Mode::Cbc, 16, Backend::Soft);
        assert_eq!(c.finalize(&mut [0u8; 16]), Err(Fail::NoKeySet));
        c.init(Some(&[0u8; 16]), None, true).unwrap();
        assert_eq!(
            c.cipher(Io::InPlace(&mut [0u8; 15]), 15),
            Err(Fail::Unsupported)
        );
    }

    #[test]
    fn key_only_reinit_restarts_cbc_from_the_original_iv() {
        let key = [8u8; 16];
        let iv = [4u8; 16];
        let mut c = ctx(Mode::Cbc, &key, &iv, true, false);
        let first = run(&mut c, &[1u8; 32], &[], false).unwrap();
        c.init(Some(&key), None, true).unwrap();
        assert_eq!(run(&mut c, &[1u8; 32], &[], false).unwrap(), first);
        let mut dup = c.clone();
        c.init(None, Some(&[0u8; 16]), true).unwrap();
        dup.init(None, None, true).unwrap();
        assert_ne!(run(&mut c, &[1u8; 32], &[], false).unwrap(), first);
        assert_eq!(run(&mut dup, &[1u8; 32], &[], false).unwrap(), first);
    }
}
