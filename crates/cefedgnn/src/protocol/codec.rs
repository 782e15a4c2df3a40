//! The binary framing: `MAGIC`, version (u16), kind (u8), payload length (u32), payload; all
//! integers and floats little-endian, vectors as a u32 length then the elements.

use crate::error::{FedError, Result};

/// Frame magic.
pub const MAGIC: [u8; 4] = *b"CEFG";
/// The protocol version this code speaks.
pub const PROTOCOL_VERSION: u16 = 1;
/// Bytes of the frame header (magic, version, kind, payload length).
pub const FRAME_HEADER_BYTES: usize = 4 + 2 + 1 + 4;

/// Appends little-endian values to a buffer.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, x: u8) {
        self.buf.push(x);
    }
    pub(crate) fn u16(&mut self, x: u16) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    pub(crate) fn u32(&mut self, x: u32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, x: u64) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    pub(crate) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("vectors in messages are bounded far below 2^32"));
    }
    pub(crate) fn f32s(&mut self, xs: &[f32]) {
        self.len(xs.len());
        for x in xs {
            self.buf.extend_from_slice(&x.to_le_bytes());
        }
    }
    pub(crate) fn u32s(&mut self, xs: &[u32]) {
        self.len(xs.len());
        for x in xs {
            self.u32(*x);
        }
    }
}

/// Reads little-endian values, failing with [`FedError::Malformed`] on truncation.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| {
                FedError::Malformed(format!(
                    "truncated: need {n} bytes at offset {}, have {}",
                    self.pos,
                    self.buf.len() - self.pos
                ))
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    pub(crate) fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    /// A vector length, checked against the bytes left so a corrupt length cannot allocate.
    fn len(&mut self, elem: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(elem) > self.buf.len() - self.pos {
            return Err(FedError::Malformed(format!(
                "vector of {n} elements does not fit in the {} bytes left",
                self.buf.len() - self.pos
            )));
        }
        Ok(n)
    }
    pub(crate) fn f32s(&mut self) -> Result<Vec<f32>> {
        let n = self.len(4)?;
        let raw = self.take(4 * n)?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
    pub(crate) fn u32s(&mut self) -> Result<Vec<u32>> {
        let n = self.len(4)?;
        let raw = self.take(4 * n)?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
    pub(crate) fn finish(&self) -> Result<()> {
        if self.pos != self.buf.len() {
            return Err(FedError::Malformed(format!(
                "{} trailing bytes",
                self.buf.len() - self.pos
            )));
        }
        Ok(())
    }
}

/// Wraps a payload into a frame.
pub(crate) fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.buf.reserve(FRAME_HEADER_BYTES + payload.len());
    w.buf.extend_from_slice(&MAGIC);
    w.u16(PROTOCOL_VERSION);
    w.u8(kind);
    w.len(payload.len());
    w.buf.extend_from_slice(payload);
    w.buf
}

/// Checks a frame's size bound, magic, version and length; returns `(kind, payload)`.
///
/// The size bound is checked first, so an oversized frame is rejected without parsing.
pub(crate) fn unframe<'a>(
    frame: &'a [u8],
    limit: usize,
    kind_name: &'static str,
) -> Result<(u8, &'a [u8])> {
    if frame.len() > limit {
        return Err(FedError::MessageTooLarge {
            kind: kind_name,
            bytes: frame.len(),
            limit,
        });
    }
    let mut r = Reader::new(frame);
    let magic = r.take(4)?;
    if magic != MAGIC {
        return Err(FedError::Malformed(format!("bad magic {magic:?}")));
    }
    let version = r.u16()?;
    if version != PROTOCOL_VERSION {
        return Err(FedError::UnknownVersion {
            found: version,
            expected: PROTOCOL_VERSION,
        });
    }
    let kind = r.u8()?;
    let len = r.u32()? as usize;
    let payload = &frame[FRAME_HEADER_BYTES..];
    if payload.len() != len {
        return Err(FedError::Malformed(format!(
            "payload length {len} in header, {} bytes present",
            payload.len()
        )));
    }
    Ok((kind, payload))
}
