//! Reading reports: memory map, validation, and the noisy graph.

use std::io::Read;
use std::path::Path;

use graph_core::{BitAdjacency, Graph, GraphBuilder, GraphError};

use super::checksum::checksum;
use super::header::{
    Encoding, HEADER_LEN, MAGIC, ReportFault, ReportHeader, count_bits, fault, pairs, u64_at,
};
use crate::error::Result;

enum Backing {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// An opened, validated report: the file memory-mapped, its header parsed and its checksum
/// verified. [`Report::to_graph`] decodes the noisy graph.
pub struct Report {
    bytes: Backing,
    header: ReportHeader,
}

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Report")
            .field("header", &self.header)
            .finish()
    }
}

/// Whether the file at `path` starts with the report magic bytes (the format is recognised by
/// content, not by extension).
///
/// # Errors
/// [`crate::EdgeRefineError::Graph`] wrapping the I/O error when the file cannot be opened.
pub fn is_report(path: &Path) -> Result<bool> {
    let mut f = std::fs::File::open(path).map_err(|e| io(path, e))?;
    let mut head = [0u8; 8];
    let mut got = 0;
    while got < 8 {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(path, e)),
        }
    }
    Ok(got == 8 && head == MAGIC)
}

fn io(path: &Path, source: std::io::Error) -> crate::EdgeRefineError {
    GraphError::Io {
        path: path.to_path_buf(),
        source,
    }
    .into()
}

/// Validates a whole report held in memory: header against the length, then the checksum.
fn validate(bytes: &[u8]) -> Result<ReportHeader> {
    let header = ReportHeader::parse(bytes)?;
    if header.encoding == Encoding::Dense {
        check_dense_count(&header, &bytes[HEADER_LEN..])?;
    }
    let computed = checksum(&bytes[..56], &bytes[HEADER_LEN..]);
    if computed != header.checksum {
        return Err(fault(
            56,
            ReportFault::Checksum {
                stored: header.checksum,
                computed,
            },
        ));
    }
    Ok(header)
}

impl Report {
    /// Memory-maps and validates the report at `path` (see the [module docs](super) for the
    /// order of checks). Nothing proportional to the header's `n` or `m` is allocated.
    ///
    /// # Errors
    /// [`crate::EdgeRefineError::Report`] naming the byte offset of a corrupt or truncated file;
    /// [`crate::EdgeRefineError::Graph`] wrapping an I/O error.
    ///
    /// # Complexity
    /// O(file length) for the checksum; no copy of the file.
    pub fn open(path: &Path) -> Result<Self> {
        let file = std::fs::File::open(path).map_err(|e| io(path, e))?;
        let len = file.metadata().map_err(|e| io(path, e))?.len();
        let bytes = if len < HEADER_LEN as u64 {
            let mut v = Vec::with_capacity(HEADER_LEN);
            (&file)
                .take(HEADER_LEN as u64)
                .read_to_end(&mut v)
                .map_err(|e| io(path, e))?;
            Backing::Owned(v)
        } else {
            // SAFETY: the map is read-only and private to this process. Another process
            // truncating or rewriting the file while it is mapped is outside the contract (the
            // writer replaces files by rename, which leaves this mapping intact).
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io(path, e))?;
            Backing::Mapped(map)
        };
        let header = validate(match &bytes {
            Backing::Mapped(m) => m,
            Backing::Owned(v) => v,
        })?;
        Ok(Self { bytes, header })
    }

    /// The validated header.
    pub fn header(&self) -> &ReportHeader {
        &self.header
    }

    /// The raw bytes (header and body).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match &self.bytes {
            Backing::Mapped(m) => m,
            Backing::Owned(v) => v,
        }
    }

    /// Decodes the noisy graph.
    ///
    /// # Errors
    /// [`crate::EdgeRefineError::Report`] when the body contradicts the header (edge count,
    /// padding bits, sparse pairs out of range or order).
    ///
    /// # Complexity
    /// O(n²/64 + m) for a dense body, O(m) for a sparse one; memory O(n + m) for the graph.
    pub fn to_graph(&self) -> Result<Graph> {
        body_to_graph(&self.header, &self.as_bytes()[HEADER_LEN..])
    }
}

impl Report {
    /// The noisy graph as packed symmetric rows, for [`crate::refine_bits_with_progress`]: a
    /// dense body is unpacked directly
    /// ([`graph_core::BitAdjacency::from_upper_triangle`]), without an edge list, so a report of
    /// billions of noisy edges needs `n²/8` bytes here and not an edge list of them.
    ///
    /// # Errors
    /// As [`Report::to_graph`] (a dense body's count and padding were checked by
    /// [`Report::open`]); [`crate::EdgeRefineError::Graph`] when the rows do not fit in memory.
    ///
    /// # Complexity
    /// O(n²/64) for a dense body; O(m) plus the rows for a sparse one; memory `n²/8` bytes.
    pub fn to_bit_adjacency(&self) -> Result<BitAdjacency> {
        let body = &self.as_bytes()[HEADER_LEN..];
        match self.header.encoding {
            Encoding::Dense => Ok(BitAdjacency::from_upper_triangle(
                self.header.n as usize,
                body,
            )?),
            Encoding::Sparse => Ok(body_to_graph(&self.header, body)?.bit_adjacency()),
        }
    }
}

/// Validates a report held in memory and decodes its noisy graph.
///
/// # Errors
/// As [`Report::open`] and [`Report::to_graph`].
pub fn decode_report(bytes: &[u8]) -> Result<(ReportHeader, Graph)> {
    let header = validate(bytes)?;
    let g = body_to_graph(&header, &bytes[HEADER_LEN..])?;
    Ok((header, g))
}

/// A dense body's bit count must be the header's m, and its padding bits zero (checked before
/// the checksum so that a wrong m is named at its own offset).
fn check_dense_count(h: &ReportHeader, body: &[u8]) -> Result<()> {
    let words = body.len() / 8;
    if count_bits(body) != h.edges {
        return Err(fault(
            24,
            ReportFault::BadField {
                field: "m",
                reason: "differs from the number of bits set in the body",
            },
        ));
    }
    let used = pairs(h.n) % 64;
    if words > 0 && used != 0 && u64_at(body, 8 * (words - 1)) >> used != 0 {
        return Err(fault(
            (HEADER_LEN + 8 * (words - 1)) as u64,
            ReportFault::BadBody("padding bits after the last pair are set"),
        ));
    }
    Ok(())
}

/// What decoding allocates, for the error when it does not fit.
fn noisy_graph(h: &ReportHeader) -> String {
    format!(
        "the noisy graph of {} nodes ({} noisy edges) as an edge list",
        h.n, h.edges
    )
}

/// The pairs `(i, j)`, `i < j`, of the set bits of a dense body of `n` nodes, in bit order
/// (lexicographic). Bits after the last pair must be zero (checked on open).
pub(super) fn dense_pairs(n: u64, body: &[u8]) -> impl Iterator<Item = (u32, u32)> + '_ {
    let (mut row, mut row_start, mut row_end) = (0u64, 0u64, n.saturating_sub(1));
    body.chunks_exact(8)
        .enumerate()
        .flat_map(move |(w, c)| {
            let mut word = u64_at(c, 0);
            std::iter::from_fn(move || {
                if word == 0 {
                    return None;
                }
                let k = (w as u64) * 64 + u64::from(word.trailing_zeros());
                word &= word - 1;
                Some(k)
            })
        })
        .map(move |k| {
            while k >= row_end {
                row += 1;
                row_start = row_end;
                row_end += n - 1 - row;
            }
            (row as u32, (row + 1 + (k - row_start)) as u32)
        })
}

fn body_to_graph(h: &ReportHeader, body: &[u8]) -> Result<Graph> {
    let n = h.n as usize; // checked to fit by ReportHeader::parse
    let mut b = GraphBuilder::new(n)?;
    match h.encoding {
        Encoding::Dense => {
            b.try_reserve(h.edges as usize, &noisy_graph(h))?;
            for (u, v) in dense_pairs(h.n, body) {
                b.add_edge(u, v)?;
            }
        }
        Encoding::Sparse => {
            b.try_reserve(h.edges as usize, &noisy_graph(h))?;
            let mut prev: Option<(u32, u32)> = None;
            for (i, c) in body.chunks_exact(8).enumerate() {
                let pair = u64_at(c, 0);
                let (u, v) = (pair as u32, (pair >> 32) as u32);
                let offset = (HEADER_LEN + 8 * i) as u64;
                if u >= v || u64::from(v) >= h.n {
                    return Err(fault(offset, ReportFault::BadBody("pair not u < v < n")));
                }
                if prev.is_some_and(|p| p >= (u, v)) {
                    return Err(fault(
                        offset,
                        ReportFault::BadBody("pairs not strictly increasing"),
                    ));
                }
                prev = Some((u, v));
                b.add_edge(u, v)?;
            }
        }
    }
    Ok(b.build()?)
}
