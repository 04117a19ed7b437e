//! The raw-pointer API (`aesx_cuda::raw`) on device memory that the test
//! allocates itself, as another library would: every mode against aesx on
//! the CPU, on the legacy default stream and on a stream of the test's own,
//! in place and out of place, forgeries, batches with a bad tag, and the
//! pointer checks. Without a CUDA device each test prints "no CUDA device"
//! and passes; AESX_REQUIRE_GPU=1 turns that into a failure.

use std::sync::OnceLock;

use aesx_cuda::raw::{self, CUstream};
use aesx_cuda::{CudaAes, CudaError, CudaGcm, CudaXts, Gpu};
use cudarc::driver::{CudaSlice, DevicePtr};

fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e @ (CudaError::NoDevice(_) | CudaError::NoNvrtc(_))) => {
            if std::env::var("AESX_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("AESX_REQUIRE_GPU=1 but: {e}");
            }
            eprintln!("no CUDA device, skipping raw-pointer test ({e})");
            None
        }
        Err(e) => panic!("GPU present but unusable: {e}"),
    })
    .as_ref()
}

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 9) as u8)
        .collect()
}

/// A device copy of `bytes` and its address.
fn upload(g: &Gpu, bytes: &[u8]) -> (CudaSlice<u8>, u64) {
    let s = g.stream();
    let d = if bytes.is_empty() {
        s.alloc_zeros::<u8>(16).unwrap()
    } else {
        s.clone_htod(bytes).unwrap()
    };
    let p = d.device_ptr(s).0;
    s.synchronize().unwrap();
    (d, p)
}

fn download(g: &Gpu, d: &CudaSlice<u8>, n: usize) -> Vec<u8> {
    // Everything the tests queue on other streams is waited for first.
    g.context().synchronize().unwrap();
    let mut v = g.stream().clone_dtoh(d).unwrap();
    v.truncate(n);
    v
}

/// The legacy default stream and a non-blocking stream of the test's own.
fn streams(
    g: &Gpu,
) -> (
    Vec<Option<CUstream>>,
    std::sync::Arc<cudarc::driver::CudaStream>,
) {
    let own = g.context().new_stream().unwrap();
    (vec![None, Some(own.cu_stream())], own)
}

const KEY: [u8; 32] = [7; 32];

#[test]
fn gcm_matches_the_cpu_and_refuses_forgeries() {
    let Some(g) = gpu() else { return };
    let (ss, _own) = streams(g);
    let k = CudaGcm::new(g, &KEY).unwrap();
    let cpu = aesx::Gcm::new(&KEY).unwrap();
    let nonce = [3u8; 12];
    for n in [0usize, 1, 15, 16, 1000, 65536 + 7, (1 << 20) + 3] {
        for &s in &ss {
            let pt = data(n, 1);
            let mut want = pt.clone();
            let tag = cpu
                .seal_in_place_detached(&nonce, b"aad", &mut want)
                .unwrap();
            let (din, pin) = upload(g, &pt);
            let (dout, pout) = upload(g, &vec![0u8; n]);
            // SAFETY: both buffers are this GPU's, n bytes (at least), alive to the end.
            let t = unsafe { k.seal_raw(&nonce, b"aad", pin, pout, n, s) }.unwrap();
            assert_eq!(&t[..], tag.as_bytes(), "n={n}");
            assert_eq!(download(g, &dout, n), want, "n={n}");
            // SAFETY: both buffers are this GPU's, n bytes (at least), alive to the end.
            unsafe { k.open_raw(&nonce, b"aad", pout, pout, n, &t, s) }.unwrap();
            assert_eq!(download(g, &dout, n), pt);
            if n > 0 {
                let mut bad = t;
                bad[5] ^= 1;
                let (dc, pc) = upload(g, &want);
                // SAFETY: both buffers are this GPU's, n bytes (at least), alive to the end.
                let r = unsafe { k.open_raw(&nonce, b"aad", pc, pin, n, &bad, s) };
                assert_eq!(r, Err(CudaError::Aes(aesx::Error::AuthenticationFailed)));
                assert_eq!(download(g, &din, n), vec![0u8; n]);
                drop(dc);
            }
        }
    }
}

#[test]
fn many_messages_match_the_cpu_and_report_each_failure() {
    let Some(g) = gpu() else { return };
    let (ss, _own) = streams(g);
    let k = CudaGcm::new(g, &KEY).unwrap();
    let cpu = aesx::Gcm::new(&KEY).unwrap();
    let stride = 16384;
    let n = 4 * stride + 100;
    let nonces: Vec<[u8; 12]> = (0..5u8).map(|i| [i; 12]).collect();
    for &s in &ss {
        let pt = data(n, 2);
        let (d, p) = upload(g, &pt);
        // SAFETY: `d` is this GPU's, n bytes, alive to the end.
        let tags = unsafe { k.seal_many_raw(&nonces, b"hdr", stride, p, n, s) }.unwrap();
        let got = download(g, &d, n);
        for (i, nonce) in nonces.iter().enumerate() {
            let r = i * stride..((i + 1) * stride).min(n);
            let mut m = pt[r.clone()].to_vec();
            let t = cpu.seal_in_place_detached(nonce, b"hdr", &mut m).unwrap();
            assert_eq!(got[r], m[..]);
            assert_eq!(&tags[i][..], t.as_bytes());
        }
        let mut bad = tags.clone();
        bad[1][0] ^= 1;
        bad[3][15] ^= 1;
        // SAFETY: `d` is this GPU's, n bytes, alive to the end.
        let ok = unsafe { k.open_many_raw(&nonces, b"hdr", stride, p, n, &bad, s) }.unwrap();
        assert_eq!(ok, [true, false, true, false, true]);
        let got = download(g, &d, n);
        assert_eq!(got[..stride], pt[..stride]);
        assert!(got[stride..2 * stride].iter().all(|&b| b == 0));
        assert_eq!(got[2 * stride..3 * stride], pt[2 * stride..3 * stride]);
        assert!(got[3 * stride..4 * stride].iter().all(|&b| b == 0));
        assert_eq!(got[4 * stride..], pt[4 * stride..]);
    }
}

#[test]
fn block_modes_and_xts_match_the_cpu() {
    let Some(g) = gpu() else { return };
    let (ss, _own) = streams(g);
    let k = CudaAes::new(g, &KEY).unwrap();
    let cpu = aesx::Aes::new(&KEY).unwrap();
    let counter = [0xffu8; 16];
    let iv = [9u8; 16];
    for n in [16usize, 4096, (1 << 20) + 16] {
        for &s in &ss {
            let pt = data(n, 3);
            let (din, pin) = upload(g, &pt);
            let (dout, pout) = upload(g, &vec![0u8; n]);
            let mut want = pt.clone();
            aesx::Ctr::new(&KEY, &counter)
                .unwrap()
                .apply_keystream(&mut want);
            // SAFETY: both buffers are this GPU's, n bytes, alive to the end.
            unsafe { k.ctr_apply_raw(&counter, pin, pout, n - 3, s) }.unwrap();
            assert_eq!(download(g, &dout, n - 3), want[..n - 3]);
            let mut ecb = pt.clone();
            cpu.encrypt_blocks(&mut ecb).unwrap();
            // SAFETY: both buffers are this GPU's, n bytes, alive to the end.
            unsafe { k.ecb_encrypt_raw(pin, pout, n, s) }.unwrap();
            assert_eq!(download(g, &dout, n), ecb);
            // SAFETY: both buffers are this GPU's, n bytes, alive to the end.
            unsafe { k.ecb_decrypt_raw(pout, pout, n, s) }.unwrap();
            assert_eq!(download(g, &dout, n), pt);
            let mut cbc = pt.clone();
            aesx::Cbc::new(&KEY)
                .unwrap()
                .encrypt_in_place(&iv, &mut cbc)
                .unwrap();
            let (dc, pc) = upload(g, &cbc);
            // SAFETY: both buffers are this GPU's, n bytes, alive to the end.
            unsafe { k.cbc_decrypt_raw(&iv, pc, pout, n, s) }.unwrap();
            assert_eq!(download(g, &dout, n), pt);
            drop((dc, din));
        }
    }
    let xkey: Vec<u8> = (0..64u8).collect();
    let x = CudaXts::new(g, &xkey).unwrap();
    let cpux = aesx::Xts::new(&xkey).unwrap();
    for &s in &ss {
        let pt = data(8 * 4096, 4);
        let mut want = pt.clone();
        cpux.encrypt_sectors(4096, 1 << 40, &mut want).unwrap();
        let (d, p) = upload(g, &pt);
        // SAFETY: `d` is this GPU's, 8 sectors, alive to the end.
        unsafe { x.encrypt_sectors_raw(1 << 40, 4096, p, p, pt.len(), s) }.unwrap();
        assert_eq!(download(g, &d, pt.len()), want);
        // SAFETY: `d` is this GPU's, 8 sectors, alive to the end.
        unsafe { x.decrypt_sectors_raw(1 << 40, 4096, p, p, pt.len(), s) }.unwrap();
        assert_eq!(download(g, &d, pt.len()), pt);
    }
}

#[test]
fn pointers_are_checked_before_anything_is_queued() {
    let Some(g) = gpu() else { return };
    let k = CudaAes::new(g, &KEY).unwrap();
    let (d, p) = upload(g, &data(4096, 5));
    let host = vec![0u8; 4096];
    let hp = host.as_ptr() as u64 & !15;
    // SAFETY: every call below is refused before any memory is touched.
    unsafe {
        assert!(
            matches!(k.ctr_apply_raw(&[0; 16], p + 1, p + 1, 64, None), Err(CudaError::Driver(m)) if m.contains("aligned"))
        );
        assert!(
            matches!(k.ctr_apply_raw(&[0; 16], p, p + 16, 64, None), Err(CudaError::Driver(m)) if m.contains("overlap"))
        );
        assert!(matches!(
            k.ctr_apply_raw(&[0; 16], hp, hp, 64, None),
            Err(CudaError::Driver(_))
        ));
        assert!(
            matches!(k.ctr_apply_raw(&[0; 16], p, p, 8192, None), Err(CudaError::Driver(m)) if m.contains("allocation"))
        );
        assert!(
            matches!(k.cbc_decrypt_raw(&[0; 16], p, p, 64, None), Err(CudaError::Driver(m)) if m.contains("overlap"))
        );
        assert!(matches!(
            k.ecb_encrypt_raw(p, p, 65, None),
            Err(CudaError::Aes(aesx::Error::NotBlockAligned { .. }))
        ));
    }
    assert_eq!(raw::device_of(p).unwrap(), g.info().ordinal);
    assert!(raw::device_of(hp).is_err());
    let buf = raw::DeviceBuffer::new(g, 1000).unwrap();
    assert_eq!(buf.ptr() % 256, 0);
    assert_eq!(buf.len(), 1000);
    drop((buf, d));
}
