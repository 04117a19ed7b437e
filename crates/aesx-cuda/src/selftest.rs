//! A known-answer check of every kernel when a `Gpu` is opened, against
//! aesx on the CPU (in the spirit of the Linux crypto self-tests): a
//! miscompiled or mis-launched kernel on some GPU or driver then surfaces as
//! an error from `Gpu::new`, never as wrong ciphertext.

use aesx::{Cbc, Ctr};

use crate::error::{CudaError, Result};
use crate::{gcm_math, gf, plan, CudaAes, CudaGcm, CudaXts, Gpu};

fn check(what: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(CudaError::Mismatch(format!(
            "self-test: {what} on the GPU differs from aesx on the CPU"
        )))
    }
}

/// XTS over whole sectors with aesx's block cipher, written out.
fn xts_cpu(key: &[u8], first: u128, sector: usize, data: &[u8]) -> Result<Vec<u8>> {
    let (k1, k2) = key.split_at(key.len() / 2);
    let (k1, k2) = (
        crate::key_schedule::cpu_aes(k1)?,
        crate::key_schedule::cpu_aes(k2)?,
    );
    Ok(crate::xts_steal::sectors_on_cpu(
        &k1, &k2, first, sector, data, false,
    ))
}

pub(crate) fn run(gpu: &Gpu) -> Result<()> {
    let s = gpu.stream();
    // More than two warps' worth of blocks plus a partial block, so that
    // every lane, the tail path and a second GHASH level run.
    let data: Vec<u8> = (0..(2 * 1024 * 16 + 16 * 40 + 7))
        .map(|i: usize| (i.wrapping_mul(167) ^ (i >> 7)) as u8)
        .collect();
    let whole = &data[..data.len() & !15];
    for key in [&[0x2bu8; 16][..], &[0x61u8; 24][..], &[0x3cu8; 32][..]] {
        let cpu = crate::key_schedule::cpu_aes(key)?;
        let k = CudaAes::new(gpu, key)?;

        let mut want = whole.to_vec();
        cpu.encrypt_blocks(&mut want)?;
        let mut dev = s.clone_htod(whole)?;
        k.ecb_encrypt_device(&mut dev)?;
        check("ECB encryption", s.clone_dtoh(&dev)? == want)?;
        k.ecb_decrypt_device(&mut dev)?;
        check("ECB decryption", s.clone_dtoh(&dev)? == whole)?;

        let mut iv = [0xffu8; 16];
        iv[15] = 0xf0; // the counter wraps modulo 2^128 inside the data
        let mut want = data.clone();
        Ctr::from_aes(cpu.clone(), &iv)?.apply_keystream(&mut want);
        let mut dev = s.clone_htod(&data[..])?;
        k.ctr_apply_device(&iv, &mut dev)?;
        check("CTR", s.clone_dtoh(&dev)? == want)?;

        let mut want = whole.to_vec();
        let mut chain = iv;
        Cbc::from(cpu.clone()).decrypt_chained(&mut chain, &mut want)?;
        let src = s.clone_htod(whole)?;
        let mut dst = s.alloc_zeros::<u8>(whole.len())?;
        k.cbc_decrypt_device(&iv, &src, &mut dst)?;
        check("CBC decryption", s.clone_dtoh(&dst)? == want)?;

        // GCM: CTR from J0 + 1 (no 32-bit wrap here, so aesx's CTR agrees)
        // and the tag from a CPU GHASH.
        let nonce = [0x5au8; 12];
        let g = CudaGcm::new(gpu, key)?;
        let mut dev = s.clone_htod(&data[..])?;
        let tag = g.seal_device(&nonce, b"aad", &mut dev)?;
        let h = gcm_math::hash_subkey(|b| cpu.encrypt_block(b));
        let j0 = gcm_math::j0(h, &nonce);
        let mut ct = data.clone();
        Ctr::from_aes(cpu.clone(), &plan::ctr32_add(&j0, 1))?.apply_keystream(&mut ct);
        check("GCM encryption", s.clone_dtoh(&dev)? == ct)?;
        let digest = gf::poly_eval_gcm_bytes(&ct, h);
        let mut want_tag = gcm_math::ghash_with_lengths(h, b"aad", ct.len() as u64, digest);
        let mut ek = j0;
        cpu.encrypt_block(&mut ek);
        for (t, e) in want_tag.iter_mut().zip(ek) {
            *t ^= e;
        }
        check("GCM tag", tag == want_tag)?;

        // GCM over messages (the file format's chunks): three messages of
        // 16 KiB, the last short, each its own nonce, against aesx's GCM.
        let nonces: Vec<[u8; 12]> = (0..3u8).map(|i| [i ^ 0x5a; 12]).collect();
        let mut buf = data.clone();
        let tags = g.seal_messages(&nonces, 16384, &mut buf)?;
        let cpu_gcm = aesx::Gcm::with_backend(key, aesx::Backend::fastest())?;
        for (i, n) in nonces.iter().enumerate() {
            let (a, b) = (i * 16384, ((i + 1) * 16384).min(data.len()));
            let sealed = cpu_gcm.seal(n, &[], &data[a..b])?;
            check("batched GCM encryption", buf[a..b] == sealed[..b - a])?;
            check("batched GCM tag", tags[i][..] == sealed[b - a..])?;
        }
        check(
            "batched GCM decryption",
            g.open_messages(&nonces, 16384, &mut buf, &tags)? == 3 && buf == data,
        )?;
    }
    let mut xkey = [0u8; 64];
    for (i, b) in xkey.iter_mut().enumerate() {
        *b = (i * 29 + 3) as u8;
    }
    for (klen, sector) in [(32, 16), (64, 528)] {
        let key = &xkey[..klen];
        let len = whole.len() / sector * sector;
        let first = u128::from(u64::MAX) - 1;
        let x = CudaXts::new(gpu, key)?;
        let mut dev = s.clone_htod(&whole[..len])?;
        x.encrypt_sectors_device(first, sector, &mut dev)?;
        check(
            "XTS",
            s.clone_dtoh(&dev)? == xts_cpu(key, first, sector, &whole[..len])?,
        )?;
        // One data unit with ciphertext stealing.
        let tweak = [0xa7u8; 16];
        let unit = &data[..16 * 40 + 7];
        let mut want = unit.to_vec();
        aesx::Xts::with_backend(key, aesx::Backend::fastest())?.encrypt(&tweak, &mut want)?;
        let mut got = unit.to_vec();
        x.encrypt_unit(&tweak, &mut got)?;
        check("XTS with ciphertext stealing", got == want)?;
    }
    s.synchronize()?;
    Ok(())
}
