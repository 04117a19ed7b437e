//! Valgrind client requests, for the constant-time tests (secret poisoning in
//! the manner of ctgrind and TIMECOP). Issued by hand so that no C toolchain
//! (bindgen, libclang) is needed. Every request is a no-op on a real CPU.
//!
//! Used by `tests/ct_valgrind.rs`; lives with the tests, not in the library.

/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: usize = 0x1001;
/// `VG_USERREQ__MAKE_MEM_UNDEFINED` and `..._DEFINED` of memcheck
/// (`'M' << 24 | 'C' << 16`, then 1 and 2).
const MAKE_MEM_UNDEFINED: usize = 0x4d43_0001;
const MAKE_MEM_DEFINED: usize = 0x4d43_0002;

/// Issues a request; returns `default` when not running under Valgrind.
#[cfg(all(target_arch = "x86_64", unix))]
fn request(default: usize, args: [usize; 6]) -> usize {
    let result;
    // SAFETY: this is Valgrind's "magic" preamble for amd64: four
    // rotations of rdi that add up to 128 bits (rdi is unchanged) and
    // `xchg rbx, rbx` (a no-op). On a real CPU nothing happens and rdx
    // keeps `default`; under Valgrind the tool reads the six words at
    // rax (a live local array) and writes its answer into rdx. rbx is not
    // modified, rdi is declared clobbered, no stack is used. `rol` writes
    // CF and OF, so the flags are not declared preserved.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") default => result,
            in("rax") args.as_ptr(),
            inout("rdi") 0usize => _,
            options(nostack),
        );
    }
    result
}

#[cfg(not(all(target_arch = "x86_64", unix)))]
fn request(default: usize, _args: [usize; 6]) -> usize {
    default
}

/// Whether this process runs under Valgrind.
pub fn running() -> bool {
    request(0, [RUNNING_ON_VALGRIND, 0, 0, 0, 0, 0]) != 0
}

/// Marks `buf` as secret: memcheck treats its bits as undefined.
pub fn poison(buf: &[u8]) {
    request(
        0,
        [
            MAKE_MEM_UNDEFINED,
            buf.as_ptr() as usize,
            buf.len(),
            0,
            0,
            0,
        ],
    );
}

/// Declassifies `buf` (an output) so that it can be compared.
pub fn unpoison(buf: &[u8]) {
    request(
        0,
        [MAKE_MEM_DEFINED, buf.as_ptr() as usize, buf.len(), 0, 0, 0],
    );
}
