//! A reader for NumPy `.npy` files (format versions 1.0–3.0, C order, little-endian numbers), and
//! the writer of the installer's converted files.

use std::path::Path;

use crate::error::{GraphError, Result};

/// The element data of an `.npy` array.
#[derive(Clone, Debug, PartialEq)]
pub enum NpyData {
    /// `|u1` / `|b1`.
    U8(Vec<u8>),
    /// `<i4`.
    I32(Vec<i32>),
    /// `<i8`.
    I64(Vec<i64>),
    /// `<f4`.
    F32(Vec<f32>),
    /// `<f8`.
    F64(Vec<f64>),
}

impl NpyData {
    fn len(&self) -> usize {
        match self {
            Self::U8(v) => v.len(),
            Self::I32(v) => v.len(),
            Self::I64(v) => v.len(),
            Self::F32(v) => v.len(),
            Self::F64(v) => v.len(),
        }
    }
}

/// An array read from an `.npy` file: its shape and row-major data.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    /// The shape.
    pub shape: Vec<usize>,
    /// The elements in C order.
    pub data: NpyData,
}

impl NpyArray {
    /// The elements converted to `f32` (integers exactly while below 2^24).
    pub fn to_f32(&self) -> Vec<f32> {
        match &self.data {
            NpyData::U8(v) => v.iter().map(|&x| f32::from(x)).collect(),
            NpyData::I32(v) => v.iter().map(|&x| x as f32).collect(),
            NpyData::I64(v) => v.iter().map(|&x| x as f32).collect(),
            NpyData::F32(v) => v.clone(),
            NpyData::F64(v) => v.iter().map(|&x| x as f32).collect(),
        }
    }

    /// The elements as `i64`, or `None` for floating-point arrays.
    pub fn to_i64(&self) -> Option<Vec<i64>> {
        match &self.data {
            NpyData::U8(v) => Some(v.iter().map(|&x| i64::from(x)).collect()),
            NpyData::I32(v) => Some(v.iter().map(|&x| i64::from(x)).collect()),
            NpyData::I64(v) => Some(v.clone()),
            NpyData::F32(_) | NpyData::F64(_) => None,
        }
    }
}

/// Reads an `.npy` file.
///
/// # Errors
/// [`GraphError::Format`] for a bad magic string, an unsupported dtype or Fortran order, a
/// malformed header, or a data section shorter or longer than the shape says (a truncated file);
/// [`GraphError::Io`] when the file cannot be read.
pub fn read_npy(path: &Path) -> Result<NpyArray> {
    let bytes = std::fs::read(path).map_err(|e| GraphError::io(path, e))?;
    parse_npy(path, &bytes)
}

pub(crate) fn parse_npy(path: &Path, bytes: &[u8]) -> Result<NpyArray> {
    let bad = |m: &str| GraphError::format(path, format!("not a valid .npy file: {m}"));
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("missing magic string"));
    }
    let major = bytes[6];
    let (header_len, start) = match major {
        1 => (
            usize::from(u16::from_le_bytes([bytes[8], bytes[9]])),
            10usize,
        ),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(bad("truncated header"));
            }
            let l = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            (l as usize, 12)
        }
        v => return Err(bad(&format!("unsupported format version {v}"))),
    };
    let header = bytes
        .get(start..start.saturating_add(header_len))
        .ok_or_else(|| bad("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not text"))?;
    let descr = dict_value(header, "descr").ok_or_else(|| bad("header without 'descr'"))?;
    let fortran = dict_value(header, "fortran_order").ok_or_else(|| bad("no 'fortran_order'"))?;
    if fortran.trim() != "False" {
        return Err(bad("Fortran-order arrays are not supported"));
    }
    let shape_txt = dict_value(header, "shape").ok_or_else(|| bad("header without 'shape'"))?;
    let shape = parse_shape(shape_txt).ok_or_else(|| bad("malformed 'shape'"))?;
    let count = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| bad("shape overflows"))?;
    let body = &bytes[start + header_len..];
    let descr = descr.trim().trim_matches(|c| c == '\'' || c == '"');
    let width = match descr {
        "|u1" | "|b1" | "u1" => 1,
        "<i4" => 4,
        "<f4" => 4,
        "<i8" | "<f8" => 8,
        other => return Err(bad(&format!("unsupported dtype {other}"))),
    };
    let need = count
        .checked_mul(width)
        .ok_or_else(|| bad("shape overflows"))?;
    if body.len() != need {
        return Err(GraphError::format(
            path,
            format!(
                "data section has {} bytes, shape {:?} of {descr} needs {} (truncated or corrupt file)",
                body.len(),
                shape,
                need
            ),
        ));
    }
    let data = match descr {
        "<i4" => NpyData::I32(
            body.chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ),
        "<f4" => NpyData::F32(
            body.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ),
        "<i8" => NpyData::I64(
            body.chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        ),
        "<f8" => NpyData::F64(
            body.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        ),
        _ => NpyData::U8(body.to_vec()),
    };
    debug_assert_eq!(data.len(), count);
    Ok(NpyArray { shape, data })
}

/// The raw text of `'key': value` in a Python dict literal (value up to the next top-level comma).
fn dict_value<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("'{key}':");
    let at = header.find(&pat)? + pat.len();
    let rest = &header[at..];
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' | '}' if depth == 0 => return Some(&rest[..i]),
            _ => {}
        }
    }
    None
}

fn parse_shape(s: &str) -> Option<Vec<usize>> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().ok())
        .collect()
}

/// A NumPy v1.0 file as `numpy.save` (numpy ≥ 1.22) writes it: the header leaves room for the
/// first axis to grow to 21 digits and is padded to a multiple of 64 bytes (the installer's
/// converters write it; feature `install`).
#[cfg_attr(not(feature = "install"), allow(dead_code))]
pub(crate) fn npy_bytes(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let shape_txt = match shape {
        [n] => format!("({n},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_txt}, }}");
    // numpy leaves room for the first axis to grow to 21 digits, then pads to 64 bytes.
    let first = shape.first().map_or(1, |d| d.to_string().len());
    header.push_str(&" ".repeat(21usize.saturating_sub(first)));
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_matches_numpy() {
        // numpy.save(np.zeros((2708, 1433), np.uint8)) writes a 128-byte header.
        let b = npy_bytes("|u1", &[2708, 1433], &[]);
        assert_eq!(b.len(), 128);
        assert!(b.ends_with(
            b"'shape': (2708, 1433), }                                                    \n"
        ));
        let b = npy_bytes("<i8", &[3], &[0; 24]);
        assert_eq!(b.len(), 128 + 24);
        assert!(
            std::str::from_utf8(&b[10..128])
                .unwrap()
                .contains("'shape': (3,), }")
        );
    }

    fn npy(descr: &str, shape: &str, body: &[u8]) -> Vec<u8> {
        let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + h.len() + 1) % 64 != 0 {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn reads_u8_matrix_and_i64_vector() {
        let p = Path::new("x.npy");
        let a = parse_npy(p, &npy("|u1", "(2, 3)", &[1, 0, 1, 0, 1, 1])).unwrap();
        assert_eq!(a.shape, vec![2, 3]);
        assert_eq!(a.to_f32(), vec![1.0, 0.0, 1.0, 0.0, 1.0, 1.0]);
        let body: Vec<u8> = [3i64, -1].iter().flat_map(|v| v.to_le_bytes()).collect();
        let b = parse_npy(p, &npy("<i8", "(2,)", &body)).unwrap();
        assert_eq!(b.to_i64(), Some(vec![3, -1]));
    }

    #[test]
    fn rejects_truncated_and_unsupported() {
        let p = Path::new("x.npy");
        let e = parse_npy(p, &npy("|u1", "(2, 3)", &[1, 0, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("truncated"), "{e}");
        assert!(parse_npy(p, &npy("<c16", "(1,)", &[0; 16])).is_err());
        assert!(parse_npy(p, b"not numpy at all").is_err());
    }
}
