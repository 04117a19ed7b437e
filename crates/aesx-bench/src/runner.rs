//! What every implementation under test provides: one keyed [`Runner`].
//!
//! A runner holds an expanded key and the mode's running state (CBC chain,
//! CTR counter). One call processes one message of the case's size in place
//! and continues that state, so that consecutive calls are one long stream,
//! as `openssl speed` and ARM's speed test measure it; the key schedule is
//! outside the timed loop for every implementation alike.

use super::cases::{Mode, Setup};

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

/// A runner made of its keyed state and what one call does with it
/// (`call(state, buf, len)`, as [`Runner::call`]): the rows whose call is a
/// line or two need no type of their own. Generic, so each row's call is
/// compiled as if written out in its own `impl Runner`.
pub fn calls<S, F>(state: S, call: F) -> Box<dyn Runner>
where
    S: Send + 'static,
    F: FnMut(&mut S, &mut [u8], usize) -> Result<(), String> + Send + 'static,
{
    Box::new(Calls { state, call })
}

struct Calls<S, F> {
    state: S,
    call: F,
}

impl<S, F> Runner for Calls<S, F>
where
    S: Send,
    F: FnMut(&mut S, &mut [u8], usize) -> Result<(), String> + Send,
{
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        (self.call)(&mut self.state, buf, len)
    }
}

/// As [`calls`], for the rows whose every call gives a tag (CMAC, key
/// wrap's integrity block): the runner keeps the last one for
/// [`Runner::tag`].
pub fn tagged_calls<S, F>(state: S, call: F) -> Box<dyn Runner>
where
    S: Send + 'static,
    F: FnMut(&mut S, &mut [u8], usize) -> Result<Option<[u8; 16]>, String> + Send + 'static,
{
    Box::new(TaggedCalls {
        state,
        call,
        tag: None,
    })
}

struct TaggedCalls<S, F> {
    state: S,
    call: F,
    tag: Option<[u8; 16]>,
}

impl<S, F> Runner for TaggedCalls<S, F>
where
    S: Send,
    F: FnMut(&mut S, &mut [u8], usize) -> Result<Option<[u8; 16]>, String> + Send,
{
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.tag = (self.call)(&mut self.state, buf, len)?;
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// An authentic ciphertext and its tag.
pub type Sealed = (Vec<u8>, [u8; 16]);

/// An AEAD row on `key`: for the `*-enc` rows each call seals the buffer
/// in place under the next nonce (`seal(key, nonce, aad, buf)`, giving the
/// tag); for the `*-dec` rows each call opens the case's one authentic
/// message into the buffer (`open(key, nonce, aad, ct, tag, buf)`, in place
/// after a copy or out of place, as the library does it best). Generic, so
/// each library's two calls compile as if written out in its own runner.
pub fn aead_rows<K, N, S, O>(
    key: K,
    nonce: N,
    mode: Mode,
    setup: &Setup,
    seal: S,
    open: O,
) -> Result<Box<dyn Runner>, String>
where
    K: Send + 'static,
    N: AsMut<[u8]> + Send + 'static,
    S: FnMut(&mut K, &N, &[u8], &mut [u8]) -> Result<Option<[u8; 16]>, String> + Send + 'static,
    O: FnMut(&mut K, &N, &[u8], &[u8], &[u8; 16], &mut [u8]) -> Result<(), String> + Send + 'static,
{
    let aad = setup.aad.clone();
    // Two runner types, not one with a branch per call: each row's call
    // holds only its own path, as a hand-written runner would.
    Ok(match opened(mode, setup)? {
        None => Box::new(Sealing {
            key,
            nonce,
            aad,
            seal,
            tag: None,
        }),
        Some((ct, tag)) => Box::new(Opening {
            key,
            nonce,
            aad,
            ct,
            tag,
            open,
        }),
    })
}

struct Sealing<K, N, S> {
    key: K,
    nonce: N,
    aad: Vec<u8>,
    seal: S,
    tag: Option<[u8; 16]>,
}

impl<K, N, S> Runner for Sealing<K, N, S>
where
    K: Send,
    N: AsMut<[u8]> + Send,
    S: FnMut(&mut K, &N, &[u8], &mut [u8]) -> Result<Option<[u8; 16]>, String> + Send,
{
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.tag = (self.seal)(&mut self.key, &self.nonce, &self.aad, &mut buf[..len])?;
        // Every AEAD row's nonce moves on as GCM's does (see
        // `Mode::next_iv`: by its length).
        Mode::GcmEnc.next_iv(self.nonce.as_mut());
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

struct Opening<K, N, O> {
    key: K,
    nonce: N,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: [u8; 16],
    open: O,
}

impl<K, N, O> Runner for Opening<K, N, O>
where
    K: Send,
    N: Send,
    O: FnMut(&mut K, &N, &[u8], &[u8], &[u8; 16], &mut [u8]) -> Result<(), String> + Send,
{
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let (ct, buf) = (&self.ct[..len], &mut buf[..len]);
        (self.open)(&mut self.key, &self.nonce, &self.aad, ct, &self.tag, buf)
    }
}

/// The case's IV, nonce or tweak as the `N`-byte array a library takes;
/// `err` (naming the library) when its length differs.
pub fn fixed_iv<const N: usize>(setup: &Setup, err: &str) -> Result<[u8; N], String> {
    setup.iv.as_slice().try_into().map_err(|_| err.to_string())
}

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
