//! The GPU streams against aesx's soft backend behind the GPU's traits
//! (small batches, so that batching, chaining and counters across calls are
//! exercised without a GPU).

use super::*;
use aesx::Backend;
use clap::Parser;

/// aesx's soft backend behind the GPU's traits, with small batches.
struct Model;

fn aes_e(e: aesx::Error) -> aesx_cuda::CudaError {
    aesx_cuda::CudaError::Aes(e)
}

struct ModelAes(Vec<u8>);
struct ModelXts(aesx::Xts);
struct ModelGcm(Vec<u8>);

impl BulkAes for ModelAes {
    fn ecb(&self, decrypt: bool, buf: &mut [u8]) -> aesx_cuda::Result<()> {
        let a = aesx::Aes::with_backend(&self.0, Backend::Soft).map_err(aes_e)?;
        if decrypt {
            a.decrypt_blocks(buf)
        } else {
            a.encrypt_blocks(buf)
        }
        .map_err(aes_e)
    }
    fn ctr(&self, counter: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
        let mut c = aesx::Ctr::with_backend(&self.0, counter, Backend::Soft).map_err(aes_e)?;
        c.apply_keystream(buf);
        Ok(())
    }
    fn cbc_decrypt(&self, iv: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
        let c = aesx::Cbc::with_backend(&self.0, Backend::Soft).map_err(aes_e)?;
        c.decrypt_chained(&mut iv.clone(), buf).map_err(aes_e)
    }
}

impl BulkXts for ModelXts {
    fn xts(&self, decrypt: bool, shape: &XtsShape, buf: &mut [u8]) -> aesx_cuda::Result<()> {
        let x = &self.0;
        match *shape {
            XtsShape::Unit(t) if decrypt => x.decrypt(&t, buf),
            XtsShape::Unit(t) => x.encrypt(&t, buf),
            XtsShape::Sectors { size, next } if decrypt => x.decrypt_sectors(size, next, buf),
            XtsShape::Sectors { size, next } => x.encrypt_sectors(size, next, buf),
        }
        .map_err(aes_e)
    }
}

impl BulkGcm for ModelGcm {
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> aesx_cuda::Result<[u8; 16]> {
        let g = aesx::Gcm::with_backend(&self.0, Backend::Soft).map_err(aes_e)?;
        let t = g.seal_in_place_detached(nonce, aad, buf).map_err(aes_e)?;
        Ok(t.as_bytes().try_into().unwrap())
    }
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> aesx_cuda::Result<()> {
        let g = aesx::Gcm::with_backend(&self.0, Backend::Soft)
            .and_then(|g| g.with_tag_len(tag.len()))
            .map_err(aes_e)?;
        g.open_in_place_detached(nonce, aad, buf, tag).map_err(|e| {
            buf.fill(0);
            aes_e(e)
        })
    }
}

impl Engine for Model {
    fn aes(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkAes>> {
        Ok(Box::new(ModelAes(key.to_vec())))
    }
    fn xts(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkXts>> {
        Ok(Box::new(ModelXts(
            aesx::Xts::with_backend(key, Backend::Soft).map_err(aes_e)?,
        )))
    }
    fn gcm(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkGcm>> {
        Ok(Box::new(ModelGcm(key.to_vec())))
    }
    fn batch(&self) -> usize {
        1000
    }
}

#[derive(Parser)]
struct Cmd {
    #[command(flatten)]
    args: super::super::Args,
}

fn params(args: &super::super::Args) -> Params<'_> {
    Params {
        args,
        op: args.op,
        mode: format!("{:?}", args.mode).to_lowercase(),
        key: hex::decode(&args.key).unwrap(),
        iv: args.iv.as_deref().map(|s| hex::decode(s).unwrap()),
        padding: args.padding.map(|p| match p {
            super::super::PaddingArg::Pkcs7 => Padding::Pkcs7,
            super::super::PaddingArg::None => Padding::None,
        }),
        backend: Backend::Soft,
    }
}

/// Feeds `input` in pieces of varying sizes; the output or the error text.
fn drive(s: &mut dyn Stream, input: &[u8], seed: usize) -> Result<Vec<u8>, String> {
    s.check_len(input.len() as u64).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut off = 0;
    let mut k = seed;
    while off < input.len() {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let n = (k >> 8) % 1500 + 1;
        let end = (off + n).min(input.len());
        s.update(&input[off..end], &mut out)
            .map_err(|e| e.to_string())?;
        off = end;
    }
    s.finish(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn run_both(
    argv: &[&str],
    input: &[u8],
    seed: usize,
) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let mut full = vec!["cipher"];
    full.extend(argv);
    let cmd = Cmd::try_parse_from(&full).unwrap();
    let p = params(&cmd.args);
    let cpu = super::super::build(cmd.args.mode, &p).unwrap();
    let inner = super::super::build(cmd.args.mode, &p).unwrap();
    let Job::Stream(mut gpu) = job_on(&Model, cmd.args.mode, &p, inner).unwrap() else {
        panic!("the GPU job is a stream");
    };
    let gpu = drive(gpu.as_mut(), input, seed);
    match cpu {
        Job::Stream(mut cpu) => (drive(cpu.as_mut(), input, seed), gpu),
        // The CPU's GCM streams through files; compare with the
        // library's one-shot GCM, errors by kind only.
        Job::Gcm(_) => {
            let tag_len = cmd.args.tag_len.unwrap_or(16);
            let gcm = aesx::Gcm::new(&p.key)
                .unwrap()
                .with_tag_len(tag_len)
                .unwrap();
            let iv = p.iv.clone().unwrap();
            let aad = cmd.args.aad.as_deref().map(|a| hex::decode(a).unwrap());
            let aad = aad.unwrap_or_default();
            let want = match p.op {
                Op::Encrypt => gcm.seal(&iv, &aad, input),
                Op::Decrypt => gcm.open(&iv, &aad, input),
            };
            (
                want.map_err(|_| "GCM failed".to_string()),
                gpu.map_err(|_| "GCM failed".to_string()),
            )
        }
        Job::Whole(_) => panic!("job_on refuses the CPU-only modes"),
    }
}

const K16: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const K64: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
                   f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff00112233445566778899aabbccddeeff";
const IV: &str = "000102030405060708090a0b0c0dfffe";

#[test]
fn gpu_streams_match_the_cpu_streams_for_any_chunking() {
    let ecb = ["--mode", "ecb", "--key", K16];
    let cbc = ["--mode", "cbc", "--key", K16, "--iv", IV];
    let xts = ["--mode", "xts", "--key", K64];
    let gcm = ["--mode", "gcm", "--key", K16, "--iv"];
    let no_padding = ["--padding", "none"];
    let modes: Vec<Vec<&str>> = vec![
        ecb.to_vec(),
        [&ecb[..], &no_padding].concat(),
        cbc.to_vec(),
        [&cbc[..], &no_padding].concat(),
        vec![
            "--mode",
            "ctr",
            "--key",
            K16,
            "--iv",
            "ffffffffffffffffffffffffffffffff",
        ],
        [&xts[..], &["--tweak", IV]].concat(),
        [&xts[..], &["--sector", "12345"]].concat(),
        [&xts[..], &["--sector-size", "512", "--sector", "9"]].concat(),
        [&gcm[..], &["cafebabefacedbaddecaf888"]].concat(),
        [&gcm[..], &["01", "--aad", "feedface", "--tag-len", "12"]].concat(),
    ];
    for (mi, m) in modes.iter().enumerate() {
        for len in [0usize, 1, 15, 16, 17, 512, 1000, 4096, 5003, 5120] {
            let data: Vec<u8> = (0..len).map(|i| (i * 13 + mi) as u8).collect();
            let mut enc = vec!["encrypt"];
            enc.extend(m);
            let (want, got) = run_both(&enc, &data, len + mi);
            assert_eq!(
                got.is_ok(),
                want.is_ok(),
                "{m:?} {len}: {got:?} vs {want:?}"
            );
            assert_eq!(got, want, "{m:?} encrypt {len}");
            let Ok(ct) = want else { continue };
            let mut dec = vec!["decrypt"];
            dec.extend(m);
            let (want, got) = run_both(&dec, &ct, 7 * len + mi);
            assert_eq!(got, want, "{m:?} decrypt {len}");
            assert_eq!(got.as_deref(), Ok(&data[..]), "{m:?} round trip {len}");
            if !ct.is_empty() {
                // A flipped last byte: GCM refuses, padding may fail;
                // either way both paths agree.
                let mut bad = ct.clone();
                *bad.last_mut().unwrap() ^= 0x41;
                let (want, got) = run_both(&dec, &bad, len);
                assert_eq!(got, want, "{m:?} tampered {len}");
            }
        }
    }
}
