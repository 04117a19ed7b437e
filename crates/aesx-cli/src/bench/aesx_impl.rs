//! aesx itself, on a forced backend, through its public mode objects.

use aesx::{Aes, Backend, Block, Cbc, Cmac, Ctr, Gcm, KeyWrap, Xts};

use super::cases::{Mode, Setup};
use super::runner::Runner;
use crate::cipher::aead::Aead;

/// aesx has every mode in [`Mode`] with every key size the mode defines.
pub fn supports(mode: Mode, key_bits: u32) -> bool {
    mode.has_key_bits(key_bits)
}

fn iv_block(setup: &Setup) -> Result<Block, String> {
    setup
        .iv
        .as_slice()
        .try_into()
        .map_err(|_| format!("IV of {} bytes, expected 16", setup.iv.len()))
}

/// A keyed runner for `mode` on `backend`.
pub fn runner(backend: Backend, mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let e = |e: aesx::Error| e.to_string();
    if let Some(kind) = mode.aead_kind() {
        let aead = Aead::new(kind, &setup.key, 16, backend).map_err(e)?;
        return Ok(Box::new(AeadRunner {
            aead,
            mode,
            nonce: setup.iv.clone(),
            aad: setup.aad.clone(),
            sealed: opened(mode, setup)?,
            tag: None,
        }));
    }
    Ok(match mode {
        Mode::Block => Box::new(BlockRunner(
            Aes::with_backend(&setup.key, backend).map_err(e)?,
        )),
        Mode::Ecb => Box::new(EcbRunner(
            Aes::with_backend(&setup.key, backend).map_err(e)?,
        )),
        Mode::CbcEnc | Mode::CbcDec => Box::new(CbcRunner {
            cbc: Cbc::with_backend(&setup.key, backend).map_err(e)?,
            chain: iv_block(setup)?,
            decrypt: mode == Mode::CbcDec,
        }),
        Mode::Ctr => Box::new(CtrRunner(
            Ctr::with_backend(&setup.key, &setup.iv, backend).map_err(e)?,
        )),
        Mode::XtsEnc | Mode::XtsDec => Box::new(XtsRunner {
            xts: Xts::with_backend(&setup.key, backend).map_err(e)?,
            tweak: iv_block(setup)?,
            decrypt: mode == Mode::XtsDec,
        }),
        Mode::GcmEnc => Box::new(GcmSeal {
            gcm: Gcm::with_backend(&setup.key, backend).map_err(e)?,
            nonce: setup.iv.clone(),
            aad: setup.aad.clone(),
            tag: None,
        }),
        Mode::GcmDec => {
            let (ct, tag) = setup
                .sealed
                .clone()
                .ok_or("gcm-dec needs a sealed message")?;
            Box::new(GcmOpen {
                gcm: Gcm::with_backend(&setup.key, backend).map_err(e)?,
                nonce: setup.iv.clone(),
                aad: setup.aad.clone(),
                ct,
                tag,
            })
        }
        Mode::Cmac => Box::new(CmacRunner {
            cmac: Cmac::with_backend(&setup.key, backend).map_err(e)?,
            tag: None,
        }),
        Mode::Kw => Box::new(KwRunner {
            kw: KeyWrap::with_backend(&setup.key, backend).map_err(e)?,
            tag: None,
        }),
        _ => return Err(format!("aesx: no {mode} runner")),
    })
}

/// An authentic ciphertext and its tag.
pub type Sealed = (Vec<u8>, [u8; 16]);

/// The `*-dec` rows' authentic message, which every call opens.
pub fn opened(mode: Mode, setup: &Setup) -> Result<Option<Sealed>, String> {
    if !mode.opens() {
        return Ok(None);
    }
    setup
        .sealed
        .clone()
        .map(Some)
        .ok_or_else(|| format!("{mode} needs a sealed message"))
}

/// Key wrap's output as a row: the wrapped data's last `len` bytes in the
/// buffer, its first 8 (the integrity block) as the first half of the
/// "tag", so that the whole output is compared across implementations.
pub fn kw_output(wrapped: &[u8], buf: &mut [u8], len: usize) -> Result<[u8; 16], String> {
    if wrapped.len() != len + 8 {
        return Err(format!("key wrap gave {} bytes for {len}", wrapped.len()));
    }
    buf[..len].copy_from_slice(&wrapped[8..]);
    let mut tag = [0u8; 16];
    tag[..8].copy_from_slice(&wrapped[..8]);
    Ok(tag)
}

/// GCM-SIV, XAES-256-GCM or CCM: sealing under the next nonce per call, or
/// opening the same message (copied into the buffer, then opened in place:
/// these are the library's in-place calls).
struct AeadRunner {
    aead: Aead,
    mode: Mode,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    sealed: Option<(Vec<u8>, [u8; 16])>,
    tag: Option<[u8; 16]>,
}

impl Runner for AeadRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let e = |e: aesx::Error| e.to_string();
        match &self.sealed {
            None => {
                let tag = self
                    .aead
                    .seal_detached(&self.nonce, &self.aad, &mut buf[..len])
                    .map_err(e)?;
                self.tag = tag.as_bytes().try_into().ok();
                self.mode.next_iv(&mut self.nonce);
            }
            Some((ct, tag)) => {
                buf[..len].copy_from_slice(&ct[..len]);
                self.aead
                    .open_detached(&self.nonce, &self.aad, &mut buf[..len], tag)
                    .map_err(e)?;
            }
        }
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// The CMAC of the buffer; the buffer is left as it is.
struct CmacRunner {
    cmac: Cmac,
    tag: Option<[u8; 16]>,
}

impl Runner for CmacRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.tag = Some(self.cmac.mac(&buf[..len]));
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// Wraps the buffer (see [`kw_output`] for where the output goes).
struct KwRunner {
    kw: KeyWrap,
    tag: Option<[u8; 16]>,
}

impl Runner for KwRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let wrapped = self.kw.wrap(&buf[..len]).map_err(|e| e.to_string())?;
        self.tag = Some(kw_output(&wrapped, buf, len)?);
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// One `encrypt_block` call per block.
struct BlockRunner(Aes);

impl Runner for BlockRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let (blocks, _) = buf[..len].as_chunks_mut::<16>();
        for b in blocks {
            self.0.encrypt_block(b);
        }
        Ok(())
    }
}

struct EcbRunner(Aes);

impl Runner for EcbRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0
            .encrypt_blocks(&mut buf[..len])
            .map_err(|e| e.to_string())
    }
}

struct CbcRunner {
    cbc: Cbc,
    chain: Block,
    decrypt: bool,
}

impl Runner for CbcRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let r = if self.decrypt {
            self.cbc.decrypt_chained(&mut self.chain, &mut buf[..len])
        } else {
            self.cbc.encrypt_chained(&mut self.chain, &mut buf[..len])
        };
        r.map_err(|e| e.to_string())
    }
}

struct CtrRunner(Ctr);

impl Runner for CtrRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0.apply_keystream(&mut buf[..len]);
        Ok(())
    }
}

/// One data unit per call; the tweak moves on to the next sector.
struct XtsRunner {
    xts: Xts,
    tweak: Block,
    decrypt: bool,
}

impl Runner for XtsRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let r = if self.decrypt {
            self.xts.decrypt(&self.tweak, &mut buf[..len])
        } else {
            self.xts.encrypt(&self.tweak, &mut buf[..len])
        };
        Mode::XtsEnc.next_iv(&mut self.tweak);
        r.map_err(|e| e.to_string())
    }
}

/// One message per call, sealed in place under the next nonce.
struct GcmSeal {
    gcm: Gcm,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    tag: Option<[u8; 16]>,
}

impl Runner for GcmSeal {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let tag = self
            .gcm
            .seal_in_place_detached(&self.nonce, &self.aad, &mut buf[..len])
            .map_err(|e| e.to_string())?;
        self.tag = tag.as_bytes().try_into().ok();
        Mode::GcmEnc.next_iv(&mut self.nonce);
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// The same authentic message opened each call, into the buffer.
struct GcmOpen {
    gcm: Gcm,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: [u8; 16],
}

impl Runner for GcmOpen {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.gcm
            .open_to_detached(
                &self.nonce,
                &self.aad,
                &self.ct[..len],
                &self.tag,
                &mut buf[..len],
            )
            .map_err(|e| e.to_string())
    }
}
