//! Byte-reproducible gzip: the converted `.gz` files of the registry were written by GNU
//! `gzip -9 -n` or by Python's `gzip` module, and a converter must reproduce their exact bytes.
//! Both run stock zlib's deflate at level 9 (GNU gzip with `memLevel` 9, Python with 8), so this
//! module drives stock zlib (libz-sys, built from its bundled source) with the same parameters
//! and writes the same header. miniz_oxide and zlib-ng compress differently and cannot be used.

use std::os::raw::c_int;

/// Which tool's output to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GzipProfile {
    /// `gzip -9 -n`: no name, mtime 0, OS = Unix, zlib level 9, memLevel 9.
    Gnu,
    /// Python's `gzip.open(path, "wb")` with mtime 0: the file's base name (without `.gz`) in
    /// the header, OS = unknown (255), zlib level 9, memLevel 8.
    Python,
}

/// Compresses `data` as `profile` does; `name` is the header's file name ([`GzipProfile::Python`]
/// only).
///
/// # Example
/// ```
/// use graph_core::install::{gzip, GzipProfile};
/// let gz = gzip(b"1, 2\n2, 1\n", GzipProfile::Gnu, "");
/// assert_eq!(&gz[..4], &[0x1f, 0x8b, 8, 0]);
/// let mut back = String::new();
/// std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut back).unwrap();
/// assert_eq!(back, "1, 2\n2, 1\n");
/// ```
pub fn gzip(data: &[u8], profile: GzipProfile, name: &str) -> Vec<u8> {
    let mem_level = match profile {
        GzipProfile::Gnu => 9,
        GzipProfile::Python => 8,
    };
    let mut out = Vec::with_capacity(data.len() / 3 + 64);
    match profile {
        GzipProfile::Gnu => out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]),
        GzipProfile::Python => {
            out.extend_from_slice(&[0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 2, 255]);
            out.extend_from_slice(name.as_bytes());
            out.push(0);
        }
    }
    raw_deflate(data, mem_level, &mut out);
    let mut crc = flate2::Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// Appends zlib's raw deflate stream (level 9, window 2^15, default strategy) of `data`.
fn raw_deflate(data: &[u8], mem_level: c_int, out: &mut Vec<u8>) {
    use libz_sys as z;
    unsafe extern "C" fn zalloc(_: z::voidpf, items: z::uInt, size: z::uInt) -> z::voidpf {
        // SAFETY: calloc with any sizes is sound; zlib checks for a null result.
        unsafe { libc::calloc(items as libc::size_t, size as libc::size_t) }
    }
    unsafe extern "C" fn zfree(_: z::voidpf, p: z::voidpf) {
        // SAFETY: zlib frees only what `zalloc` returned.
        unsafe { libc::free(p) }
    }
    let mut s = z::z_stream {
        next_in: std::ptr::null_mut(),
        avail_in: 0,
        total_in: 0,
        next_out: std::ptr::null_mut(),
        avail_out: 0,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc,
        zfree,
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    };
    // SAFETY: the stream is initialised by deflateInit2_ before use; every pointer handed to
    // zlib below points into live buffers (`data` for input, the spare capacity of `out` for
    // output) whose lengths are passed with them; `out`'s length grows only by what zlib wrote;
    // the stream is ended before the buffers go out of scope.
    unsafe {
        let rc = z::deflateInit2_(
            &mut s,
            9,
            z::Z_DEFLATED,
            -15,
            mem_level,
            z::Z_DEFAULT_STRATEGY,
            z::zlibVersion(),
            std::mem::size_of::<z::z_stream>() as c_int,
        );
        assert_eq!(rc, z::Z_OK, "deflateInit2 failed: zlib out of memory");
        let mut input = data;
        loop {
            let chunk = input.len().min(1 << 30);
            s.next_in = input.as_ptr().cast_mut();
            s.avail_in = chunk as z::uInt;
            let last = chunk == input.len();
            loop {
                out.reserve(1 << 16);
                let spare = out.capacity() - out.len();
                s.next_out = out.as_mut_ptr().add(out.len());
                s.avail_out = spare.min(1 << 30) as z::uInt;
                let before = s.avail_out;
                let rc = z::deflate(&mut s, if last { z::Z_FINISH } else { z::Z_NO_FLUSH });
                let written = (before - s.avail_out) as usize;
                out.set_len(out.len() + written);
                if rc == z::Z_STREAM_END {
                    break;
                }
                assert!(
                    rc == z::Z_OK || rc == z::Z_BUF_ERROR,
                    "deflate failed ({rc})"
                );
                if s.avail_in == 0 && !last {
                    break;
                }
            }
            input = &input[chunk..];
            if last {
                break;
            }
        }
        z::deflateEnd(&mut s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_headers() {
        let text: Vec<u8> = (0..50_000u32)
            .flat_map(|i| format!("{}, {}\n", i % 977, i % 13).into_bytes())
            .collect();
        for p in [GzipProfile::Gnu, GzipProfile::Python] {
            let gz = gzip(&text, p, "x_A.txt");
            let mut back = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut back)
                .unwrap();
            assert_eq!(back, text);
            assert!(gz.len() < text.len() / 3);
        }
        let py = gzip(b"", GzipProfile::Python, "n.txt");
        assert_eq!(&py[10..16], b"n.txt\0");
        assert_eq!(py[9], 255);
    }

    /// Known output: `printf 'hello\n' | gzip -9 -n | sha256sum`.
    #[test]
    fn matches_gnu_gzip_bytes() {
        let gz = gzip(b"hello\n", GzipProfile::Gnu, "");
        assert_eq!(
            crate::registry::sha256_hex(&gz),
            "4925d2d4a2e887f938e428cb8c890c598b485c906ae241975c01be1dcc373c51"
        );
    }
}
