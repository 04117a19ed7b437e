//! What every implementation under test provides: one keyed [`Runner`].
//!
//! A runner holds an expanded key and the mode's running state (CBC chain,
//! CTR counter). One call processes one message of the case's size in place
//! and continues that state, so that consecutive calls are one long stream,
//! as `openssl speed` and ARM's speed test measure it; the key schedule is
//! outside the timed loop for every implementation alike.

/// Spare bytes after the message in every buffer handed to a runner:
/// OpenSSL's `EVP_CipherUpdate` wrapper insists on room for one more block
/// even when padding is off, and the slack costs the others nothing.
pub const TAIL: usize = 16;

/// One implementation, keyed and ready for one case.
pub trait Runner: Send {
    /// Processes `buf[..len]` in place, continuing the mode's state.
    /// `buf.len() >= len + TAIL`.
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String>;

    /// The tag of the last call, for the AEAD modes.
    fn tag(&self) -> Option<[u8; 16]> {
        None
    }
}
