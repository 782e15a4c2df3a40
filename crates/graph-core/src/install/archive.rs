//! Reading upstream archives (zip, tar.gz, gz, or a plain file) safely: member names are
//! normalised (`\` and `/` both separate), members that would escape the target folder (`..`,
//! absolute paths, drive letters) or are links are refused, and decompression stops at a byte
//! limit, so a hostile or corrupt archive is an error, never a write outside the install folder
//! or an unbounded allocation.

use std::collections::BTreeMap;
use std::io::Read;

use crate::error::{GraphError, Result};

/// What kind of container a downloaded file is, from its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    /// A zip archive (`PK\x03\x04`, or an empty zip's `PK\x05\x06`).
    Zip,
    /// A gzip stream holding a tar archive (`.tar.gz`, `.tgz`).
    TarGz,
    /// A gzip stream holding one file.
    Gz,
    /// Anything else: the file itself is the only member.
    Plain,
}

/// An unpacked archive: member paths (normalised, `/`-separated, relative) and their bytes.
///
/// Only regular files are kept; folders are implied by the paths.
#[derive(Clone, Debug, Default)]
pub struct Archive {
    members: BTreeMap<String, Vec<u8>>,
}

/// Normalises a member name: `\` and `/` both separate components, empty and `.` components are
/// dropped.
///
/// # Errors
/// A message when the name is absolute, has a drive letter or a `..` component, or is empty.
pub(crate) fn normalise(name: &str) -> std::result::Result<String, String> {
    if name.starts_with('/') || name.starts_with('\\') {
        return Err(format!("member `{name}` has an absolute path"));
    }
    let mut parts = Vec::new();
    for c in name.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => return Err(format!("member `{name}` escapes the target folder")),
            c if c.len() >= 2 && c.as_bytes()[1] == b':' && parts.is_empty() => {
                return Err(format!("member `{name}` has a drive letter"));
            }
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        return Err(format!("member `{name}` has an empty path"));
    }
    Ok(parts.join("/"))
}

impl Archive {
    /// Detects the container kind of `bytes`.
    pub fn kind_of(bytes: &[u8]) -> ArchiveKind {
        if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            ArchiveKind::Zip
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            // A tar inside? Peek at the first decompressed block for the `ustar` magic.
            let mut head = Vec::new();
            let _ = flate2::read::MultiGzDecoder::new(bytes)
                .take(512)
                .read_to_end(&mut head);
            if head.len() == 512 && &head[257..262] == b"ustar" {
                ArchiveKind::TarGz
            } else {
                ArchiveKind::Gz
            }
        } else {
            ArchiveKind::Plain
        }
    }

    /// Unpacks `bytes` (the download of `name`, whose last path segment names a plain or gz
    /// member), decompressing at most `limit` bytes in total.
    ///
    /// # Errors
    /// [`GraphError::Archive`] for a truncated or corrupt container, a member escaping the
    /// target folder, a link, a duplicate member, or more than `limit` decompressed bytes.
    ///
    /// # Complexity
    /// O(decompressed bytes); memory O(`limit`).
    ///
    /// # Example
    /// ```
    /// use graph_core::install::Archive;
    /// let a = Archive::read(b"1, 2\n", "https://host/x/MUTAG_A.txt", 1 << 20)?;
    /// assert_eq!(a.get("MUTAG_A.txt"), Some(&b"1, 2\n"[..]));
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn read(bytes: &[u8], name: &str, limit: u64) -> Result<Self> {
        Self::read_filtered(bytes, name, limit, &|_| true)
    }

    /// As [`Archive::read`], keeping (and decompressing) only the members whose normalised path
    /// `keep` accepts: one dataset's members of an archive that holds several. Names are still
    /// checked for every member.
    ///
    /// # Errors
    /// As [`Archive::read`].
    pub fn read_filtered(
        bytes: &[u8],
        name: &str,
        limit: u64,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Self> {
        let base = name
            .rsplit(['/', '\\'])
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or("download");
        let err = |message: String| GraphError::Archive {
            archive: base.to_owned(),
            message,
        };
        let mut a = Archive::default();
        // Without the zip and tar readers only gz and plain files consult no filter.
        #[cfg(not(any(feature = "zip", feature = "tar")))]
        let _ = keep;
        match Self::kind_of(bytes) {
            #[cfg(feature = "zip")]
            ArchiveKind::Zip => a.read_zip(bytes, limit, keep).map_err(err)?,
            #[cfg(not(feature = "zip"))]
            ArchiveKind::Zip => {
                return Err(err(
                    "reading zip archives needs graph-core's feature `zip` (on by default)".into(),
                ));
            }
            #[cfg(feature = "tar")]
            ArchiveKind::TarGz => a.read_tar_gz(bytes, limit, keep).map_err(err)?,
            #[cfg(not(feature = "tar"))]
            ArchiveKind::TarGz => {
                return Err(err(
                    "reading tar.gz archives needs graph-core's feature `tar` (on by default)"
                        .into(),
                ));
            }
            ArchiveKind::Gz => {
                let data = read_limited(flate2::read::MultiGzDecoder::new(bytes), limit)
                    .map_err(|e| err(e.to_string()))?;
                let member = base.strip_suffix(".gz").unwrap_or(base);
                a.insert(member, data).map_err(err)?;
            }
            ArchiveKind::Plain => {
                if bytes.len() as u64 > limit {
                    return Err(err(format!("larger than the limit of {limit} bytes")));
                }
                a.insert(base, bytes.to_vec()).map_err(err)?;
            }
        }
        Ok(a)
    }

    fn insert(&mut self, name: &str, data: Vec<u8>) -> std::result::Result<(), String> {
        let path = normalise(name)?;
        if self.members.insert(path.clone(), data).is_some() {
            return Err(format!("duplicate member `{path}`"));
        }
        Ok(())
    }

    #[cfg(feature = "zip")]
    fn read_zip(
        &mut self,
        bytes: &[u8],
        limit: u64,
        keep: &dyn Fn(&str) -> bool,
    ) -> std::result::Result<(), String> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .map_err(|e| format!("not a readable zip: {e}"))?;
        let mut total = 0u64;
        for i in 0..zip.len() {
            let mut f = zip.by_index(i).map_err(|e| format!("member {i}: {e}"))?;
            let name = String::from_utf8_lossy(f.name_raw()).into_owned();
            if f.is_symlink() {
                return Err(format!("member `{name}` is a symbolic link"));
            }
            if f.is_dir() || name.ends_with('/') || name.ends_with('\\') {
                normalise(&name).or_else(|e| {
                    if e.contains("empty path") {
                        Ok(String::new())
                    } else {
                        Err(e)
                    }
                })?;
                continue;
            }
            if !keep(&normalise(&name)?) {
                continue;
            }
            let data =
                read_limited(&mut f, limit - total).map_err(|e| format!("member `{name}`: {e}"))?;
            total += data.len() as u64;
            self.insert(&name, data)?;
        }
        Ok(())
    }

    #[cfg(feature = "tar")]
    fn read_tar_gz(
        &mut self,
        bytes: &[u8],
        limit: u64,
        keep: &dyn Fn(&str) -> bool,
    ) -> std::result::Result<(), String> {
        let mut tar = tar::Archive::new(flate2::read::MultiGzDecoder::new(bytes));
        let mut total = 0u64;
        for entry in tar
            .entries()
            .map_err(|e| format!("not a readable tar: {e}"))?
        {
            let mut entry = entry.map_err(|e| format!("corrupt tar: {e}"))?;
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let kind = entry.header().entry_type();
            if kind.is_symlink() || kind.is_hard_link() {
                return Err(format!("member `{name}` is a link"));
            }
            if kind.is_dir() {
                continue;
            }
            if !kind.is_file() {
                if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
                    continue;
                }
                return Err(format!("member `{name}` is not a regular file"));
            }
            if !keep(&normalise(&name)?) {
                continue;
            }
            let data = read_limited(&mut entry, limit - total)
                .map_err(|e| format!("member `{name}`: {e}"))?;
            total += data.len() as u64;
            self.insert(&name, data)?;
        }
        Ok(())
    }

    /// The bytes of the member at `path` (normalised, `/`-separated).
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.members.get(path).map(Vec::as_slice)
    }

    /// The member whose path is `suffix` or ends with `/suffix`; `None` when there is none or
    /// more than one.
    pub fn find(&self, suffix: &str) -> Option<(&str, &[u8])> {
        let tail = format!("/{suffix}");
        let mut hits = self
            .members
            .iter()
            .filter(|(p, _)| *p == suffix || p.ends_with(&tail));
        let first = hits.next()?;
        if hits.next().is_some() {
            return None;
        }
        Some((first.0.as_str(), first.1.as_slice()))
    }

    /// Member paths in sorted order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.members.keys().map(String::as_str)
    }

    /// Total decompressed bytes.
    pub fn total_bytes(&self) -> u64 {
        self.members.values().map(|v| v.len() as u64).sum()
    }
}

/// Reads `r` to the end, failing once more than `limit` bytes come out (a decompression bomb)
/// without allocating beyond `limit + 1` bytes.
fn read_limited(r: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    r.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "decompresses to more than the limit of {limit} bytes (a decompression bomb?)"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        for (n, b) in entries {
            w.start_file(*n, opts).unwrap();
            w.write_all(b).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn names_are_normalised_and_escapes_refused() {
        assert_eq!(normalise("a\\b//c/./d.txt").unwrap(), "a/b/c/d.txt");
        assert!(normalise("../x").is_err());
        assert!(normalise("a/../../x").is_err());
        assert!(normalise("/etc/passwd").is_err());
        assert!(normalise("\\x").is_err());
        assert!(normalise("C:\\x").is_err());
        assert!(normalise("./").is_err());
    }

    #[test]
    fn zip_members_with_windows_separators() {
        let z = zip_of(&[("cora\\cora_label.npy", b"L"), ("MUTAG//README.txt", b"R")]);
        let a = Archive::read(&z, "x.zip", 100).unwrap();
        assert_eq!(a.get("cora/cora_label.npy"), Some(&b"L"[..]));
        assert_eq!(a.find("README.txt").unwrap().0, "MUTAG/README.txt");
        assert_eq!(a.total_bytes(), 2);
    }

    #[test]
    fn hostile_zips_are_errors() {
        for bad in ["../x", "a/../../x", "/abs", "C:\\win"] {
            let z = zip_of(&[(bad, b"x")]);
            let e = Archive::read(&z, "evil.zip", 100).unwrap_err();
            assert!(matches!(e, GraphError::Archive { .. }), "{bad}: {e}");
        }
        // A symbolic link member.
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.add_symlink(
            "link",
            "/etc/passwd",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        let z = w.finish().unwrap().into_inner();
        let e = Archive::read(&z, "evil.zip", 100).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // A bomb: 10 MB of zeros that compress to a few KB, against a 1 MB limit.
        let zeros = vec![0u8; 10 << 20];
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file(
            "zeros",
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        w.write_all(&zeros).unwrap();
        let z = w.finish().unwrap().into_inner();
        assert!(z.len() < 100_000);
        let e = Archive::read(&z, "bomb.zip", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("decompression bomb"), "{e}");
        // Truncated zip.
        let z = zip_of(&[("a.txt", b"hello world")]);
        let e = Archive::read(&z[..z.len() - 10], "cut.zip", 100).unwrap_err();
        assert!(matches!(e, GraphError::Archive { .. }), "{e}");
    }

    #[test]
    fn gz_and_tar_gz_and_plain() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"a,b\n").unwrap();
        let gz = gz.finish().unwrap();
        let a = Archive::read(&gz, "https://h/p/HIV.csv.gz", 100).unwrap();
        assert_eq!(a.get("HIV.csv"), Some(&b"a,b\n"[..]));
        let e = Archive::read(&gz[..gz.len() - 4], "HIV.csv.gz", 100).unwrap_err();
        assert!(matches!(e, GraphError::Archive { .. }), "{e}");

        let mut tb = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(3);
        h.set_cksum();
        tb.append_data(&mut h, "d/x.csv", &b"1,2"[..]).unwrap();
        let mut link = tar::Header::new_gnu();
        link.set_entry_type(tar::EntryType::Symlink);
        link.set_size(0);
        let tar_ok = tb.into_inner().unwrap();
        let tgz = |t: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(t).unwrap();
            e.finish().unwrap()
        };
        let a = Archive::read(&tgz(&tar_ok), "s.tgz", 100).unwrap();
        assert_eq!(a.get("d/x.csv"), Some(&b"1,2"[..]));
        let mut tb = tar::Builder::new(Vec::new());
        tb.append_link(&mut link, "d/l", "/etc/passwd").unwrap();
        let e = Archive::read(&tgz(&tb.into_inner().unwrap()), "s.tgz", 100).unwrap_err();
        assert!(e.to_string().contains("link"), "{e}");

        let e = Archive::read(&[7u8; 200], "big.bin", 100).unwrap_err();
        assert!(e.to_string().contains("limit"), "{e}");
    }
}
