//! The TLS record path of the generic ciphers, with the semantics of
//! OpenSSL 3's `ciphercommon.c` and `tls_pad.c`: once libssl sets
//! `tls-version`, every update is one whole record, in place. ECB and CBC
//! encryption append the TLS padding; decryption drops the explicit IV
//! block (TLS 1.1 and later, DTLS), checks the padding and takes the MAC
//! (`tls-mac-size` bytes) off the end in constant time: a bad padding
//! yields a random MAC, so that libssl's MAC check fails with no timing
//! difference (Lucky 13). CTR decryption takes the MAC off the end.

use aesx::BLOCK_LEN;

use super::{BlockCtx, Fail, Io, Mode};

/// `EVP_MAX_MD_SIZE`: the largest MAC a record can carry.
pub const TLS_MAC_MAX: usize = 64;

const SSL3_VERSION: u32 = 0x0300;
const TLS1_VERSION: u32 = 0x0301;
const TLS1_1_VERSION: u32 = 0x0302;
const TLS1_2_VERSION: u32 = 0x0303;
const DTLS1_VERSION: u32 = 0xfeff;
const DTLS1_2_VERSION: u32 = 0xfefd;
const DTLS1_BAD_VER: u32 = 0x0100;

/// All ones when the top bit of `x` is set, else 0.
fn ct_msb(x: usize) -> usize {
    0usize.wrapping_sub(x >> (usize::BITS - 1))
}

/// All ones when `a < b`, else 0, without a branch on either.
fn ct_lt(a: usize, b: usize) -> usize {
    ct_msb(a ^ ((a ^ b) | (a.wrapping_sub(b) ^ b)))
}

fn ct_ge(a: usize, b: usize) -> usize {
    !ct_lt(a, b)
}

fn ct_eq(a: usize, b: usize) -> usize {
    let x = a ^ b;
    ct_msb(!x & x.wrapping_sub(1))
}

impl BlockCtx {
    /// `tls-version`: 0 (not a TLS context) or the protocol version.
    pub fn tls_version(&self) -> u32 {
        self.tls_version
    }

    pub fn set_tls_version(&mut self, v: u32) {
        self.tls_version = v;
    }

    /// `tls-mac-size`.
    pub fn set_tls_mac_size(&mut self, n: usize) {
        self.tls_mac_size = n;
    }

    /// `tls-mac`: the MAC of the last record decrypted.
    pub fn tls_mac(&self) -> &[u8] {
        &self.tls_mac[..self.tls_mac_size.min(TLS_MAC_MAX)]
    }

    /// One TLS record in place: `buf` starts with the record's `inl` bytes
    /// and has room for the padding (up to a block more) when encrypting.
    /// Returns the output length: the padded record when encrypting; the
    /// payload without explicit IV, padding and MAC when decrypting (it
    /// then starts a block in for TLS 1.1 and later).
    pub fn tls_record(&mut self, buf: &mut [u8], inl: usize) -> Result<usize, Fail> {
        if !self.key_set() {
            return Err(Fail::NoKeySet);
        }
        if !self.pad || inl > buf.len() {
            return Err(Fail::Unsupported);
        }
        if self.mode == Mode::Ctr {
            self.crypt(&mut Io::InPlace(&mut buf[..inl]), 0, 0, inl);
            let mac = self.tls_mac_size;
            if self.enc || mac == 0 {
                return Ok(inl);
            }
            if mac > inl || mac > TLS_MAC_MAX {
                return Err(Fail::BadDecrypt);
            }
            self.tls_mac[..mac].copy_from_slice(&buf[inl - mac..inl]);
            return Ok(inl - mac);
        }
        let mut len = inl;
        if self.enc {
            let padnum = BLOCK_LEN - inl % BLOCK_LEN;
            if buf.len() < inl + padnum {
                return Err(Fail::OutputBufferTooSmall);
            }
            let padval = (padnum - 1) as u8;
            let pad = &mut buf[inl..inl + padnum];
            if self.tls_version == SSL3_VERSION {
                pad.fill(0);
                pad[padnum - 1] = padval;
            } else {
                pad.fill(padval);
            }
            len += padnum;
        }
        if !len.is_multiple_of(BLOCK_LEN) {
            return Err(Fail::WrongFinalBlockLength);
        }
        self.crypt(&mut Io::InPlace(&mut buf[..len]), 0, 0, len);
        if self.enc {
            return Ok(len);
        }
        let (skip, ssl3) = match self.tls_version {
            SSL3_VERSION => (0, true),
            TLS1_VERSION => (0, false),
            TLS1_1_VERSION | TLS1_2_VERSION | DTLS1_VERSION | DTLS1_2_VERSION | DTLS1_BAD_VER => {
                (BLOCK_LEN, false)
            }
            _ => return Err(Fail::Unsupported),
        };
        if len < skip {
            return Err(Fail::BadDecrypt);
        }
        self.remove_padding_and_mac(&buf[skip..len], ssl3)
    }

    /// `tls1_cbc_remove_padding_and_mac` (`ssl3_…` when `ssl3`): the
    /// payload's length; the MAC into `tls_mac` (random when the padding
    /// is bad). Fails only for publicly invalid lengths, or a bad padding
    /// with no MAC to spoil (encrypt-then-MAC, checked already).
    fn remove_padding_and_mac(&mut self, rec: &[u8], ssl3: bool) -> Result<usize, Fail> {
        let mac_size = self.tls_mac_size;
        let total = rec.len();
        let overhead = 1 + mac_size;
        if overhead > total || mac_size > TLS_MAC_MAX {
            return Err(Fail::BadDecrypt);
        }
        let pad = usize::from(rec[total - 1]);
        let mut good = ct_ge(total, overhead + pad);
        if ssl3 {
            // SSLv3's padding is minimal and its bytes are arbitrary.
            good &= ct_ge(BLOCK_LEN, pad + 1);
        } else {
            // Every byte that could be padding is looked at, whatever the
            // padding length says.
            for i in 0..total.min(256) {
                let mask = ct_ge(pad, i) as u8;
                let b = rec[total - 1 - i];
                good &= !usize::from(mask & (pad as u8 ^ b));
            }
            good = ct_eq(0xff, good & 0xff);
        }
        let mut len = total - (good & (pad + 1));
        if mac_size == 0 {
            return if good == 0 {
                Err(Fail::BadDecrypt)
            } else {
                Ok(len)
            };
        }
        let mac_end = len;
        let mac_start = mac_end - mac_size;
        len -= mac_size;
        let mut random = [0u8; TLS_MAC_MAX];
        getrandom::fill(&mut random[..mac_size]).map_err(|_| Fail::Unsupported)?;
        // Gather the MAC, whose position varies with the secret padding
        // length, from the last 256 + mac_size bytes, rotated by an
        // unknown offset; then undo the rotation with masks only.
        let scan_start = total.saturating_sub(mac_size + 256);
        let mut rotated = [0u8; TLS_MAC_MAX];
        let (mut in_mac, mut offset, mut j) = (0usize, 0usize, 0usize);
        for (i, &b) in rec.iter().enumerate().skip(scan_start) {
            let started = ct_eq(i, mac_start);
            in_mac |= started;
            in_mac &= ct_lt(i, mac_end);
            offset |= j & started;
            rotated[j] |= b & in_mac as u8;
            j += 1;
            j &= ct_lt(j, mac_size);
        }
        let keep = (good & 0xff) as u8;
        let outs = self.tls_mac[..mac_size].iter_mut().zip(&random[..mac_size]);
        for (i, (out, &rnd)) in outs.enumerate() {
            let mut idx = offset + i;
            idx -= mac_size & ct_ge(idx, mac_size);
            let mut v = 0u8;
            for (k, &r) in rotated[..mac_size].iter().enumerate() {
                v |= r & ct_eq(k, idx) as u8;
            }
            *out = (v & keep) | (rnd & !keep);
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesx::{Backend, Cbc};

    fn ctx(enc: bool, version: u32, mac: usize) -> BlockCtx {
        let mut c = BlockCtx::new(Mode::Cbc, 16, Backend::Soft);
        c.init(Some(&[3u8; 16]), Some(&[4u8; 16]), enc).unwrap();
        c.set_tls_version(version);
        c.set_tls_mac_size(mac);
        c
    }

    #[test]
    fn constant_time_helpers() {
        for (a, b) in [
            (0usize, 0usize),
            (1, 0),
            (0, 1),
            (255, 256),
            (usize::MAX, 3),
        ] {
            assert_eq!(ct_lt(a, b) == usize::MAX, a < b);
            assert_eq!(ct_ge(a, b) == usize::MAX, a >= b);
            assert_eq!(ct_eq(a, b) == usize::MAX, a == b);
        }
    }

    #[test]
    fn sealed_records_open_with_their_mac() {
        for version in [TLS1_VERSION, TLS1_2_VERSION, SSL3_VERSION] {
            let skip = if version == TLS1_2_VERSION { 16 } else { 0 };
            for (payload, mac) in [(0usize, 20usize), (5, 32), (40, 48), (300, 20), (7, 0)] {
                let inl = skip + payload + mac;
                let mut rec = vec![0u8; inl + 16];
                for (i, b) in rec[..inl].iter_mut().enumerate() {
                    *b = i as u8;
                }
                let plain = rec[..inl].to_vec();
                let mut e = ctx(true, version, mac);
                let n = e.tls_record(&mut rec, inl).unwrap();
                assert_eq!(n, (inl / 16 + 1) * 16);
                // What CBC with TLS padding gives.
                let mut want = plain.clone();
                let p = n - inl;
                if version == SSL3_VERSION {
                    want.extend(core::iter::repeat_n(0u8, p - 1));
                    want.push(p as u8 - 1);
                } else {
                    want.extend(core::iter::repeat_n(p as u8 - 1, p));
                }
                Cbc::with_backend(&[3u8; 16], Backend::Soft)
                    .unwrap()
                    .encrypt_chained(&mut [4u8; 16], &mut want)
                    .unwrap();
                assert_eq!(&rec[..n], &want[..]);
                let mut d = ctx(false, version, mac);
                let got = d.tls_record(&mut rec, n).unwrap();
                assert_eq!(got, payload, "version {version:x} mac {mac}");
                assert_eq!(&rec[skip..skip + payload], &plain[skip..skip + payload]);
                assert_eq!(d.tls_mac(), &plain[skip + payload..inl]);
            }
        }
    }

    #[test]
    fn bad_padding_gives_a_random_mac_or_fails_without_one() {
        let mut rec = [0u8; 64];
        // A last block whose padding byte says 5 over bytes that are not 5.
        rec[63] = 5;
        let mut c = BlockCtx::new(Mode::Cbc, 16, Backend::Soft);
        c.init(Some(&[3u8; 16]), Some(&[4u8; 16]), true).unwrap();
        c.cipher(Io::InPlace(&mut rec), 64).unwrap();
        let mut d = ctx(false, TLS1_2_VERSION, 20);
        let mut r = rec;
        assert_eq!(d.tls_record(&mut r, 64), Ok(48 - 20), "publicly valid");
        assert_ne!(d.tls_mac(), &[0u8; 20], "random MAC");
        let mut d = ctx(false, TLS1_2_VERSION, 0);
        let mut r = rec;
        assert_eq!(d.tls_record(&mut r, 64), Err(Fail::BadDecrypt));
        let mut d = ctx(false, TLS1_2_VERSION, 48);
        assert_eq!(
            d.tls_record(&mut rec, 64),
            Err(Fail::BadDecrypt),
            "too short"
        );
        let mut d = ctx(false, 0x0304, 20);
        assert_eq!(d.tls_record(&mut [0u8; 64], 64), Err(Fail::Unsupported));
        let mut d = ctx(false, TLS1_2_VERSION, 20);
        assert_eq!(
            d.tls_record(&mut [0u8; 40], 40),
            Err(Fail::WrongFinalBlockLength)
        );
    }
}
