//! The checks without a device, and what a machine without one answers.

use super::*;
use crate::device::Gpu;
use crate::error::CudaError;

#[test]
fn empty_buffers_need_no_address() {
    assert_eq!(check_buffers(0, 0, 0, Overlap::Disjoint), Ok(()));
    assert_eq!(check_buffers(3, 5, 0, Overlap::SameOrDisjoint), Ok(()));
}

#[test]
fn addresses_are_checked() {
    let ok = Overlap::SameOrDisjoint;
    assert_eq!(check_buffers(0, 4096, 16, ok), Err(PointerError::Null));
    assert_eq!(check_buffers(4096, 0, 16, ok), Err(PointerError::Null));
    assert_eq!(
        check_buffers(4097, 8192, 16, ok),
        Err(PointerError::Misaligned { ptr: 4097 })
    );
    assert_eq!(
        check_buffers(4096, 8200, 16, ok),
        Err(PointerError::Misaligned { ptr: 8200 })
    );
    assert_eq!(
        check_buffers(u64::MAX - 15, 4096, 32, ok),
        Err(PointerError::Wraps)
    );
    assert_eq!(check_buffers(4096, 4096, 64, ok), Ok(()));
    assert_eq!(check_buffers(4096, 4096 + 64, 64, ok), Ok(()));
    assert_eq!(check_buffers(4096 + 64, 4096, 64, ok), Ok(()));
    assert_eq!(
        check_buffers(4096, 4096 + 48, 64, ok),
        Err(PointerError::Overlap)
    );
    assert_eq!(
        check_buffers(4096 + 16, 4096, 64, ok),
        Err(PointerError::Overlap)
    );
    let cbc = Overlap::Disjoint;
    assert_eq!(
        check_buffers(4096, 4096, 64, cbc),
        Err(PointerError::Overlap)
    );
    assert_eq!(check_buffers(4096, 8192, 64, cbc), Ok(()));
}

#[test]
fn pointer_errors_become_cuda_errors_with_their_text() {
    let e: CudaError = PointerError::Misaligned { ptr: 0x11 }.into();
    assert_eq!(
        e.to_string(),
        "CUDA driver error: device pointer 0x11 is not 16-byte aligned"
    );
}

#[test]
fn batch_layouts_are_checked_without_overflow() {
    assert_eq!(check_many_args(1, 16384, 0), Ok(()));
    assert_eq!(check_many_args(3, 64, 128), Ok(()));
    assert_eq!(check_many_args(3, 64, 192), Ok(()));
    assert_eq!(check_many_args(3, 64, 130), Ok(()));
    for stride in [0, 8, 100, 16400, 16384 + 16, usize::MAX] {
        assert_eq!(
            check_many_args(1, stride, 0),
            Err(BatchError::Stride { stride })
        );
    }
    assert_eq!(check_many_args(0, 64, 0), Err(BatchError::Empty));
    // Counts whose bytes do not fit a usize: refused, never a panic
    // (debug) or a wrapped product (release).
    for count in [usize::MAX, usize::MAX / 16 + 2, 1 << 62] {
        for len in [0, 64, usize::MAX] {
            assert_eq!(
                check_many_args(count, 16384, len),
                Err(BatchError::Layout {
                    count,
                    stride: 16384,
                    len
                })
            );
        }
    }
    // The largest count that fits, and one past it.
    let count = usize::MAX / 16 + 1;
    assert_eq!(check_many_args(count, 16, usize::MAX - 15), Ok(()));
    assert_eq!(check_many_args(count, 16, usize::MAX), Ok(()));
    assert!(check_many_args(count, 16, usize::MAX - 16).is_err());
    assert!(check_many_args(count + 1, 16, usize::MAX).is_err());
    for (count, len) in [(1, 65), (2, 63), (2, 129), (4, 100)] {
        assert_eq!(
            check_many_args(count, 64, len),
            Err(BatchError::Layout {
                count,
                stride: 64,
                len
            })
        );
    }
}

#[test]
fn batch_errors_name_their_rule() {
    let s = BatchError::Stride { stride: 16400 }.to_string();
    assert!(s.contains("16400") && s.contains("16384") && s.contains("multiple of 16"));
    assert!(!s.contains("sector"));
    let e = BatchError::Empty.to_string();
    assert!(e.contains("at least one message"), "{e}");
    let l = BatchError::Layout {
        count: usize::MAX,
        stride: 16384,
        len: 5,
    }
    .to_string();
    // The bounds are printed exactly, past usize.
    let hi = u128::from(u64::MAX) * 16384;
    assert!(l.contains(&hi.to_string()), "{l}");
}

#[test]
fn sector_rules_are_the_cpus() {
    assert_eq!(
        check_sector_args(1000, 512),
        Err(aesx::Error::PartialSector {
            len: 1000,
            sector_size: 512
        })
    );
    assert_eq!(
        check_sector_args(4096, 1 << 25),
        Err(aesx::Error::InvalidSectorSize { size: 1 << 25 })
    );
    assert_eq!(
        check_sector_numbers(u128::MAX, 1024, 512),
        Err(aesx::Error::CounterOverflow)
    );
    // The same errors as aesx::Xts on the CPU, for the same mistakes.
    let x = aesx::Xts::new(&[1u8; 32]).unwrap();
    let mut buf = [0u8; 1000];
    assert_eq!(
        x.decrypt_sectors(512, 0, &mut buf),
        check_sector_args(1000, 512)
    );
    assert_eq!(
        x.decrypt_sectors(1 << 25, 0, &mut buf[..0]),
        check_sector_args(0, 1 << 25)
    );
    assert_eq!(
        x.decrypt_sectors(24, 0, &mut buf),
        check_sector_args(1000, 24)
    );
    let mut two = [0u8; 1024];
    assert_eq!(
        x.decrypt_sectors(512, u128::MAX, &mut two),
        check_sector_numbers(u128::MAX, 1024, 512)
    );
}

#[test]
fn without_a_device_no_key_can_be_made() {
    // Every raw call needs a key, and a key needs a Gpu: on a machine
    // without a driver, device or NVRTC, opening one is the error.
    if crate::device_count().is_ok() {
        return;
    }
    match Gpu::new(0) {
        Err(CudaError::NoDevice(why)) => assert!(!why.is_empty()),
        other => panic!("expected NoDevice, got {other:?}"),
    }
}
