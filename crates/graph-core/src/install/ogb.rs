//! OGB graph-property-prediction zips → the installed TU-style layout.
//!
//! The zips of `snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/` (`hiv.zip`,
//! `bace.zip`, `bbbp.zip`, `lipo.zip`) hold one folder (`hiv/`, …) with
//! - `raw/num-node-list.csv.gz`, `raw/num-edge-list.csv.gz`: atoms and bonds per molecule;
//! - `raw/node-feat.csv.gz`: 9 integer features per atom, column 0 = atomic number − 1;
//! - `raw/edge.csv.gz`: `u,v` per bond, atom ids local to the molecule, molecules concatenated;
//! - `raw/edge-feat.csv.gz`: 3 integer features per bond, column 0 = bond type;
//! - `raw/graph-label.csv.gz`: one label per molecule;
//! - `split/scaffold/{train,valid,test}.csv.gz`: 0-based molecule ids;
//! - `mapping/mol.csv.gz`: labels, SMILES and molecule names.
//!
//! Each file the registry requires is made from them (an uncompressed `raw/edge.csv` member is
//! accepted too), and gzipped as Python's `gzip` module writes it where the registry's path ends
//! in `.gz`:
//! - `NAME_A.txt`: per bond in `edge.csv` order, `i, j` then `j, i` (1-based global atom ids);
//! - `NAME_edge_labels.txt`: the bond type, once per line of `_A.txt`;
//! - `NAME_graph_indicator.txt`: the 1-based molecule id of every atom;
//! - `NAME_node_labels.txt`: the atomic number of every atom;
//! - `NAME_graph_labels.txt`: the class label of every molecule, as OGB writes it;
//! - `NAME_graph_attributes.txt`: the regression target of every molecule, spelled as the
//!   MoleculeNet CSVs spell it (see [`decimal`]);
//! - `train.idx`, `valid.idx`, `test.idx`: the scaffold split, ascending;
//! - `source/<folder>/<path>`: the zip's own member `<path>`, unchanged.

use std::io::Read;

use crate::error::{GraphError, Result};
use crate::install::archive::Archive;
use crate::install::converted::{Converted, convert_err};
use crate::install::gzip::{GzipProfile, gzip};
use crate::registry::DatasetSpec;

/// Integer features per atom in `node-feat.csv`.
const NODE_FEATS: usize = 9;
/// Integer features per bond in `edge-feat.csv`.
const EDGE_FEATS: usize = 3;
/// Relative distance within which a float label is taken for a shorter decimal (see [`decimal`]).
const REL_TOL: f64 = 1e-7;

/// Converts an OGB `ogbg-mol*` zip into the required files of `spec`.
///
/// # Errors
/// [`GraphError::Convert`] naming the member (and line) that is missing, has the wrong number of
/// columns, a value that is not a non-negative integer, an atom id outside its molecule, a
/// self-loop, a split id outside the dataset or listed twice, or counts that disagree between
/// the files; also when a member does not decompress within the size limit, or the registry asks
/// for a file this converter does not make.
pub(crate) fn convert(spec: &DatasetSpec, archive: &Archive) -> Result<Converted> {
    let limit = spec
        .size_estimate()
        .saturating_mul(64)
        .saturating_add(16 << 20);
    convert_with_limit(spec, archive, limit)
}

/// [`convert`], decompressing at most `limit` bytes of CSV in total.
///
/// # Errors
/// As [`convert`].
fn convert_with_limit(spec: &DatasetSpec, archive: &Archive, limit: u64) -> Result<Converted> {
    let mut reader = Reader {
        spec,
        archive,
        left: limit,
    };
    let mut tu = Molecules::read(&mut reader)?;
    let name = spec.name.as_str();
    let mut out = Converted::new();
    for f in spec.required_files() {
        let path = f.path.as_str();
        if let Some(rest) = path.strip_prefix("source/") {
            out.insert(f.path.clone(), copy_member(spec, archive, path, rest)?);
            continue;
        }
        let plain = path.strip_suffix(".gz").unwrap_or(path);
        let taken = |slot: &mut Option<Vec<u8>>| {
            slot.take()
                .ok_or_else(|| convert_err(spec, format!("the registry lists `{plain}` twice")))
        };
        let text = match plain {
            "train.idx" | "valid.idx" | "test.idx" => {
                let part = plain.strip_suffix(".idx").unwrap_or(plain);
                split(&mut reader, part, tu.graphs)?
            }
            p if p == format!("{name}_A.txt") => taken(&mut tu.a)?,
            p if p == format!("{name}_edge_labels.txt") => taken(&mut tu.edge_labels)?,
            p if p == format!("{name}_graph_indicator.txt") => taken(&mut tu.indicator)?,
            p if p == format!("{name}_node_labels.txt") => taken(&mut tu.node_labels)?,
            p if p == format!("{name}_graph_labels.txt") => {
                labels(&mut reader, tu.graphs, Label::Class)?
            }
            p if p == format!("{name}_graph_attributes.txt") => {
                labels(&mut reader, tu.graphs, Label::Real)?
            }
            _ => {
                return Err(convert_err(
                    spec,
                    format!("an OGB zip does not provide `{path}`"),
                ));
            }
        };
        let bytes = if path.ends_with(".gz") {
            let base = plain.rsplit('/').next().unwrap_or(plain);
            gzip(&text, GzipProfile::Python, base)
        } else {
            text
        };
        out.insert(f.path.clone(), bytes);
    }
    Ok(out)
}

/// The zip member for the registry's `source/<folder>/<member>` file (`rest` = the part after
/// `source/`), unchanged.
///
/// # Errors
/// [`GraphError::Convert`] when the archive has no single such member.
fn copy_member(spec: &DatasetSpec, archive: &Archive, path: &str, rest: &str) -> Result<Vec<u8>> {
    let member = rest.split_once('/').map_or(rest, |(_, m)| m);
    archive
        .find(member)
        .map(|(_, b)| b.to_vec())
        .ok_or_else(|| {
            convert_err(
                spec,
                format!(
                    "the archive has no member `{member}` (or more than one), needed for `{path}`"
                ),
            )
        })
}

/// Finds and decompresses CSV members, within a budget of decompressed bytes.
struct Reader<'a> {
    /// The dataset, for error messages.
    spec: &'a DatasetSpec,
    /// The unpacked zip.
    archive: &'a Archive,
    /// Decompressed bytes still allowed.
    left: u64,
}

impl<'a> Reader<'a> {
    /// The member `rel.gz` (decompressed) or `rel`, wherever the zip's top folder puts it.
    ///
    /// # Errors
    /// [`GraphError::Convert`] when neither exists (or either is ambiguous), the gzip stream is
    /// corrupt, or it decompresses to more than the bytes left in the budget.
    fn csv(&mut self, rel: &str) -> Result<Csv<'a>> {
        let spec = self.spec;
        let gz = format!("{rel}.gz");
        if let Some((name, bytes)) = self.archive.find(&gz) {
            let mut text = Vec::new();
            flate2::read::MultiGzDecoder::new(bytes)
                .take(self.left.saturating_add(1))
                .read_to_end(&mut text)
                .map_err(|e| {
                    convert_err(spec, format!("{name}: not a readable gzip stream: {e}"))
                })?;
            let n = text.len() as u64;
            if n > self.left {
                return Err(convert_err(
                    spec,
                    format!(
                        "{name}: decompresses to more than the {} bytes left of the size limit",
                        self.left
                    ),
                ));
            }
            self.left -= n;
            return Ok(Csv {
                spec,
                name: name.to_owned(),
                text,
            });
        }
        if let Some((name, bytes)) = self.archive.find(rel) {
            return Ok(Csv {
                spec,
                name: name.to_owned(),
                text: bytes.to_vec(),
            });
        }
        Err(convert_err(
            spec,
            format!("the archive has no member `{gz}` (or more than one)"),
        ))
    }
}

/// One decompressed CSV member (no header, comma-separated).
struct Csv<'a> {
    /// The dataset, for error messages.
    spec: &'a DatasetSpec,
    /// The member's path in the archive, for error messages.
    name: String,
    /// Its bytes.
    text: Vec<u8>,
}

impl Csv<'_> {
    /// `file:line: message` as a [`GraphError::Convert`].
    fn bad(&self, line: usize, message: impl std::fmt::Display) -> GraphError {
        convert_err(self.spec, format!("{}:{line}: {message}", self.name))
    }

    /// `file: message` as a [`GraphError::Convert`].
    fn bad_file(&self, message: impl std::fmt::Display) -> GraphError {
        convert_err(self.spec, format!("{}: {message}", self.name))
    }

    /// The lines with their 1-based numbers (`\r` stripped; a final newline ends the last line).
    fn lines(&self) -> impl Iterator<Item = (usize, &[u8])> {
        let body = self.text.strip_suffix(b"\n").unwrap_or(&self.text);
        let count = if self.text.is_empty() { 0 } else { usize::MAX };
        body.split(|&b| b == b'\n')
            .take(count)
            .enumerate()
            .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
    }

    /// The number of lines, as [`Csv::lines`] yields them.
    fn rows(&self) -> usize {
        if self.text.is_empty() {
            return 0;
        }
        let body = self.text.strip_suffix(b"\n").unwrap_or(&self.text);
        body.iter().filter(|&&b| b == b'\n').count() + 1
    }

    /// The `N` comma-separated non-negative integers of `line` (number `no`).
    ///
    /// # Errors
    /// [`GraphError::Convert`] naming the file and line for another column count or a value
    /// that is not a non-negative integer (below 2^64).
    fn ints<const N: usize>(&self, no: usize, line: &[u8]) -> Result<[u64; N]> {
        let mut out = [0u64; N];
        let mut k = 0;
        for field in line.split(|&b| b == b',') {
            if k == N {
                return Err(self.columns(no, line, N));
            }
            out[k] = self.int(no, field)?;
            k += 1;
        }
        if k != N {
            return Err(self.columns(no, line, N));
        }
        Ok(out)
    }

    /// The error for `line` not having `want` columns.
    fn columns(&self, no: usize, line: &[u8], want: usize) -> GraphError {
        let found = line.iter().filter(|&&b| b == b',').count() + 1;
        self.bad(
            no,
            format!("expected {want} comma-separated values, found {found}"),
        )
    }

    /// One non-negative integer (surrounding ASCII whitespace allowed).
    ///
    /// # Errors
    /// [`GraphError::Convert`] naming the file and line.
    fn int(&self, no: usize, field: &[u8]) -> Result<u64> {
        let t = field.trim_ascii();
        let not_int = || {
            self.bad(
                no,
                format!(
                    "`{}` is not a non-negative integer",
                    String::from_utf8_lossy(t)
                ),
            )
        };
        if t.is_empty() {
            return Err(not_int());
        }
        let mut v = 0u64;
        for &b in t {
            if !b.is_ascii_digit() {
                return Err(not_int());
            }
            v = match v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(b - b'0')))
            {
                Some(v) => v,
                None => return Err(not_int()),
            };
        }
        Ok(v)
    }

    /// A file of one non-negative integer per line.
    ///
    /// # Errors
    /// As [`Csv::ints`].
    fn column(&self) -> Result<Vec<u64>> {
        self.lines()
            .map(|(no, l)| self.ints::<1>(no, l).map(|[v]| v))
            .collect()
    }
}

/// Appends `v` in decimal.
fn push_int(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// The TU files made from `raw/` (each `None` once handed out).
struct Molecules {
    /// Number of molecules.
    graphs: usize,
    /// `_A.txt`.
    a: Option<Vec<u8>>,
    /// `_edge_labels.txt`.
    edge_labels: Option<Vec<u8>>,
    /// `_graph_indicator.txt`.
    indicator: Option<Vec<u8>>,
    /// `_node_labels.txt`.
    node_labels: Option<Vec<u8>>,
}

/// `a + b`, or an error naming `csv` when the sum overflows.
fn add(csv: &Csv<'_>, a: u64, b: u64) -> Result<u64> {
    a.checked_add(b)
        .ok_or_else(|| csv.bad_file("the counts overflow a 64-bit sum"))
}

impl Molecules {
    /// Reads and checks the `raw/` files and writes the graph files of the TU layout.
    ///
    /// # Errors
    /// [`GraphError::Convert`] for a missing or malformed member (named with its line), a
    /// molecule without atoms, an atom id outside its molecule, a self-loop, or counts that
    /// disagree: `num-node-list` vs `num-edge-list` lines, the atom total vs `node-feat` rows,
    /// the bond total vs `edge.csv` and `edge-feat` rows.
    fn read(reader: &mut Reader<'_>) -> Result<Self> {
        let nn = reader.csv("raw/num-node-list.csv")?;
        let sizes = nn.column()?;
        let ne = reader.csv("raw/num-edge-list.csv")?;
        let bonds = ne.column()?;
        if bonds.len() != sizes.len() {
            return Err(ne.bad_file(format!(
                "{} molecules, but {} has {}",
                bonds.len(),
                nn.name,
                sizes.len()
            )));
        }
        let mut atoms = 0u64;
        for (i, &n) in sizes.iter().enumerate() {
            if n == 0 {
                return Err(nn.bad(
                    i + 1,
                    "a molecule without atoms has no place in the TU layout",
                ));
            }
            atoms = add(&nn, atoms, n)?;
        }
        let mut bond_total = 0u64;
        for &m in &bonds {
            bond_total = add(&ne, bond_total, m)?;
        }

        // Atoms: the totals are checked against the rows before any loop runs over them.
        let nf = reader.csv("raw/node-feat.csv")?;
        if nf.rows() as u64 != atoms {
            return Err(nf.bad_file(format!(
                "{} rows, but {} sums to {atoms} atoms",
                nf.rows(),
                nn.name
            )));
        }
        let mut node_labels = Vec::with_capacity(nf.rows() * 3);
        for (no, line) in nf.lines() {
            let [z, ..] = nf.ints::<NODE_FEATS>(no, line)?;
            push_int(&mut node_labels, add(&nf, z, 1)?);
            node_labels.push(b'\n');
        }
        let mut indicator = Vec::with_capacity(nf.rows() * 6);
        for (g, &n) in sizes.iter().enumerate() {
            for _ in 0..n {
                push_int(&mut indicator, g as u64 + 1);
                indicator.push(b'\n');
            }
        }

        // Bonds.
        let e = reader.csv("raw/edge.csv")?;
        if e.rows() as u64 != bond_total {
            return Err(e.bad_file(format!(
                "{} rows, but {} sums to {bond_total} bonds",
                e.rows(),
                ne.name
            )));
        }
        let mut a = Vec::with_capacity(e.text.len().saturating_mul(5));
        let mut lines = e.lines();
        let mut offset = 0u64;
        for (g, (&n, &m)) in sizes.iter().zip(&bonds).enumerate() {
            for _ in 0..m {
                let Some((no, line)) = lines.next() else {
                    return Err(e.bad_file("ends early"));
                };
                let [u, v] = e.ints::<2>(no, line)?;
                if u >= n || v >= n {
                    return Err(e.bad(
                        no,
                        format!("atom id {} out of range 0..{n} of molecule {g}", u.max(v)),
                    ));
                }
                if u == v {
                    return Err(e.bad(no, format!("self-loop on atom {u}")));
                }
                let (i, j) = (offset + u + 1, offset + v + 1);
                push_int(&mut a, i);
                a.extend_from_slice(b", ");
                push_int(&mut a, j);
                a.push(b'\n');
                push_int(&mut a, j);
                a.extend_from_slice(b", ");
                push_int(&mut a, i);
                a.push(b'\n');
            }
            offset += n;
        }
        let ef = reader.csv("raw/edge-feat.csv")?;
        if ef.rows() as u64 != bond_total {
            return Err(ef.bad_file(format!(
                "{} rows, but {} sums to {bond_total} bonds",
                ef.rows(),
                ne.name
            )));
        }
        let mut edge_labels = Vec::with_capacity(ef.rows() * 4);
        for (no, line) in ef.lines() {
            let [t, ..] = ef.ints::<EDGE_FEATS>(no, line)?;
            let start = edge_labels.len();
            push_int(&mut edge_labels, t);
            edge_labels.push(b'\n');
            edge_labels.extend_from_within(start..);
        }
        Ok(Self {
            graphs: sizes.len(),
            a: Some(a),
            edge_labels: Some(edge_labels),
            indicator: Some(indicator),
            node_labels: Some(node_labels),
        })
    }
}

/// How a graph label is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Label {
    /// An integer class (`_graph_labels.txt`).
    Class,
    /// A real target (`_graph_attributes.txt`), see [`decimal`].
    Real,
}

/// `_graph_labels.txt` or `_graph_attributes.txt` from `raw/graph-label.csv`: one label per
/// molecule.
///
/// # Errors
/// [`GraphError::Convert`] naming the file and line for another number of rows than molecules,
/// more than one column (a multi-task set), a missing label (`nan`), or a label that is not an
/// integer class ([`Label::Class`]) or a finite number ([`Label::Real`]).
fn labels(reader: &mut Reader<'_>, graphs: usize, kind: Label) -> Result<Vec<u8>> {
    let gl = reader.csv("raw/graph-label.csv")?;
    if gl.rows() != graphs {
        return Err(gl.bad_file(format!("{} rows for {graphs} molecules", gl.rows())));
    }
    let mut out = Vec::with_capacity(gl.text.len());
    for (no, line) in gl.lines() {
        if line.contains(&b',') {
            return Err(gl.columns(no, line, 1));
        }
        let tok = std::str::from_utf8(line.trim_ascii()).unwrap_or("");
        if tok.eq_ignore_ascii_case("nan") {
            return Err(gl.bad(
                no,
                "missing label (nan): multi-task sets with gaps are not supported",
            ));
        }
        let text = match kind {
            Label::Class => class_label(tok),
            Label::Real => decimal(tok),
        };
        let text = text.ok_or_else(|| {
            let what = match kind {
                Label::Class => "an integer class label",
                Label::Real => "a finite number",
            };
            gl.bad(
                no,
                format!("`{}` is not {what}", String::from_utf8_lossy(line)),
            )
        })?;
        out.extend_from_slice(text.as_bytes());
        out.push(b'\n');
    }
    Ok(out)
}

/// A class label as written (`0`, `1`, `-1`), or an integral float (`1.0`) as an integer;
/// `None` for anything else.
fn class_label(tok: &str) -> Option<String> {
    let digits = tok.strip_prefix('-').unwrap_or(tok);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Some(tok.to_owned());
    }
    let x: f64 = tok.parse().ok()?;
    // 2^53: every integer below is exact in f64.
    (x.is_finite() && x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0)
        .then(|| format!("{}", x as i64))
}

/// A real target as the MoleculeNet CSVs (and so the mirror) spell it: the shortest decimal
/// within a relative [`REL_TOL`] of the value, without a leading `0` before the point (`.5`,
/// `-.01`) or a trailing `.0` (`1`, `-1`), and `0` for ±0.
///
/// OGB writes its float labels with Python's `repr`, so `0.5`, `-0.01` and `1.0`, and its
/// values carry binary rounding noise (`ogbg-molesol` has `-4.593999999999999` for `-4.594`):
/// taking the shortest decimal within 1e-7 undoes a float64 or float32 round trip, and leaves
/// every value with fewer than 7 significant digits (all of MoleculeNet's, which have at most 4)
/// as it was. `None` for a token that is not a finite number, or a value that needs more than 17
/// decimals.
fn decimal(tok: &str) -> Option<String> {
    let x: f64 = tok.parse().ok()?;
    if !x.is_finite() {
        return None;
    }
    let tol = x.abs() * REL_TOL;
    let s = (0..=17usize)
        .map(|d| format!("{x:.d$}"))
        .find(|s| s.parse::<f64>().is_ok_and(|y| (y - x).abs() <= tol))?;
    let (sign, digits) = match s.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", s.as_str()),
    };
    Some(match digits.strip_prefix('0') {
        Some("") => "0".to_owned(),
        Some(frac) if frac.starts_with('.') => format!("{sign}{frac}"),
        _ => format!("{sign}{digits}"),
    })
}

/// `train.idx`, `valid.idx` or `test.idx` (`part`) from `split/scaffold/<part>.csv`: the ids,
/// ascending, one per line.
///
/// # Errors
/// [`GraphError::Convert`] naming the file and line for a malformed id, an id outside
/// `0..graphs`, or an id listed twice.
fn split(reader: &mut Reader<'_>, part: &str, graphs: usize) -> Result<Vec<u8>> {
    let s = reader.csv(&format!("split/scaffold/{part}.csv"))?;
    let mut ids = Vec::with_capacity(s.rows());
    for (no, line) in s.lines() {
        let [id] = s.ints::<1>(no, line)?;
        if id >= graphs as u64 {
            return Err(s.bad(no, format!("molecule id {id} out of range 0..{graphs}")));
        }
        ids.push(id);
    }
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(s.bad_file(format!("molecule id {} listed twice", w[0])));
    }
    let mut out = Vec::with_capacity(s.text.len());
    for id in ids {
        push_int(&mut out, id);
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::registry::Registry;

    /// A gzip member.
    fn gz(text: &str) -> Vec<u8> {
        gzip(text.as_bytes(), GzipProfile::Gnu, "")
    }

    /// Two molecules (3 atoms / 2 bonds, 2 atoms / 1 bond) as OGB lays them out in `bace/`,
    /// with the member `skip` left out and `(member, text)` replacements applied.
    fn archive(skip: &str, replace: &[(&str, &str)]) -> Archive {
        let mut members: Vec<(&str, Vec<u8>)> = vec![
            ("raw/num-node-list.csv.gz", gz("3\n2\n")),
            ("raw/num-edge-list.csv.gz", gz("2\n1\n")),
            (
                "raw/node-feat.csv.gz",
                gz(
                    "5,0,4,5,3,0,2,0,0\n7,0,2,5,0,0,2,0,1\n5,0,0,0,0,0,0,0,0\n16,0,0,0,0,0,0,0,0\n7,0,0,0,0,0,0,0,0\n",
                ),
            ),
            ("raw/edge.csv.gz", gz("0,1\n2,1\n1,0\n")),
            ("raw/edge-feat.csv.gz", gz("0,0,0\n3,0,1\n1,0,0\n")),
            ("raw/graph-label.csv.gz", gz("1\n0\n")),
            ("split/scaffold/train.csv.gz", gz("1\n0\n")),
            ("split/scaffold/valid.csv.gz", gz("")),
            ("split/scaffold/test.csv.gz", gz("")),
            ("mapping/mol.csv.gz", b"MAPPING".to_vec()),
        ];
        members.retain(|(n, _)| *n != skip);
        for (n, text) in replace {
            let m = members.iter_mut().find(|(m, _)| m == n).expect("member");
            m.1 = gz(text);
        }
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (n, b) in &members {
            w.start_file(
                format!("bace/{n}"),
                zip::write::SimpleFileOptions::default(),
            )
            .expect("zip entry");
            w.write_all(b).expect("zip write");
        }
        let z = w.finish().expect("zip").into_inner();
        Archive::read(&z, "bace.zip", 1 << 20).expect("archive")
    }

    /// The registry's BACE entry.
    fn bace() -> &'static DatasetSpec {
        Registry::embedded()
            .get("BACE")
            .expect("BACE in the registry")
    }

    /// The text of a gzip stream.
    fn gunzip(b: &[u8]) -> String {
        let mut s = String::new();
        flate2::read::GzDecoder::new(b)
            .read_to_string(&mut s)
            .expect("gzip");
        s
    }

    /// The message of a [`GraphError::Convert`], or a panic.
    fn convert_message(r: Result<Converted>) -> String {
        match r {
            Err(GraphError::Convert { dataset, message }) => {
                assert_eq!(dataset, "BACE");
                message
            }
            Err(e) => panic!("not a Convert error: {e}"),
            Ok(_) => panic!("converted"),
        }
    }

    /// A two-molecule zip gives the TU files, gzipped where the registry says, and OGB's own files unchanged.
    #[test]
    fn small_archive_converts_to_the_tu_layout() {
        let out = convert(bace(), &archive("", &[])).unwrap();
        assert_eq!(
            gunzip(&out["BACE_A.txt.gz"]),
            "1, 2\n2, 1\n3, 2\n2, 3\n5, 4\n4, 5\n"
        );
        assert_eq!(
            &out["BACE_A.txt.gz"][..13],
            b"\x1f\x8b\x08\x08\0\0\0\0\x02\xffBAC"
        );
        let text = |p: &str| String::from_utf8(out[p].clone()).unwrap();
        assert_eq!(text("BACE_edge_labels.txt"), "0\n0\n3\n3\n1\n1\n");
        assert_eq!(text("BACE_graph_indicator.txt"), "1\n1\n1\n2\n2\n");
        assert_eq!(text("BACE_node_labels.txt"), "6\n8\n6\n17\n8\n");
        assert_eq!(text("BACE_graph_labels.txt"), "1\n0\n");
        assert_eq!(text("train.idx"), "0\n1\n");
        assert_eq!(text("valid.idx"), "");
        assert_eq!(out["source/ogbg_molbace/mapping/mol.csv.gz"], b"MAPPING");
        assert_eq!(
            out["source/ogbg_molbace/split/scaffold/train.csv.gz"],
            gz("1\n0\n")
        );
        assert_eq!(out.len(), bace().required_files().count());
        assert!(!out.contains_key("BACE_smiles.csv"));
    }

    /// A missing member is an error naming it.
    #[test]
    fn missing_members_are_named() {
        for m in [
            "raw/edge-feat.csv.gz",
            "raw/num-node-list.csv.gz",
            "raw/graph-label.csv.gz",
            "split/scaffold/test.csv.gz",
        ] {
            let msg = convert_message(convert(bace(), &archive(m, &[])));
            assert!(msg.contains(m), "{m}: {msg}");
        }
        let msg = convert_message(convert(bace(), &archive("mapping/mol.csv.gz", &[])));
        assert!(msg.contains("mapping/mol.csv.gz"), "{msg}");
    }

    /// Wrong column counts, non-integers, out-of-range ids, self-loops and bad labels name the file and line.
    #[test]
    fn malformed_rows_are_named_with_their_line() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "raw/node-feat.csv.gz",
                "5,0,4,5,3,0,2,0,0\n7,0,2,5,0,0,2,0\n5,0,0,0,0,0,0,0,0\n16,0,0,0,0,0,0,0,0\n7,0,0,0,0,0,0,0,0\n",
                "bace/raw/node-feat.csv.gz:2: expected 9 comma-separated values, found 8",
            ),
            (
                "raw/edge.csv.gz",
                "0,1\n2,1,0\n1,0\n",
                "bace/raw/edge.csv.gz:2: expected 2",
            ),
            (
                "raw/edge.csv.gz",
                "0,1\n2,x\n1,0\n",
                "bace/raw/edge.csv.gz:2: `x` is not a non-negative integer",
            ),
            ("raw/edge.csv.gz", "0,1\n2,-1\n1,0\n", "edge.csv.gz:2: `-1`"),
            (
                "raw/edge.csv.gz",
                "0,1\n2,1\n2,0\n",
                "edge.csv.gz:3: atom id 2 out of range 0..2 of molecule 1",
            ),
            (
                "raw/edge.csv.gz",
                "0,1\n3,1\n1,0\n",
                "edge.csv.gz:2: atom id 3 out of range 0..3",
            ),
            (
                "raw/edge.csv.gz",
                "0,1\n1,1\n1,0\n",
                "edge.csv.gz:2: self-loop",
            ),
            (
                "raw/edge-feat.csv.gz",
                "0,0,0\n3,0\n1,0,0\n",
                "edge-feat.csv.gz:2: expected 3",
            ),
            (
                "raw/num-node-list.csv.gz",
                "3\n0\n",
                "num-node-list.csv.gz:2: a molecule without atoms",
            ),
            (
                "raw/num-node-list.csv.gz",
                "3\n2.0\n",
                "num-node-list.csv.gz:2: `2.0`",
            ),
            (
                "raw/graph-label.csv.gz",
                "1\nnan\n",
                "graph-label.csv.gz:2: missing label (nan)",
            ),
            (
                "raw/graph-label.csv.gz",
                "1\n0,1\n",
                "graph-label.csv.gz:2: expected 1",
            ),
            (
                "raw/graph-label.csv.gz",
                "1\nactive\n",
                "graph-label.csv.gz:2: `active` is not an integer",
            ),
            (
                "split/scaffold/train.csv.gz",
                "1\n2\n",
                "train.csv.gz:2: molecule id 2 out of range 0..2",
            ),
            (
                "split/scaffold/train.csv.gz",
                "1\n1\n",
                "train.csv.gz: molecule id 1 listed twice",
            ),
            (
                "split/scaffold/valid.csv.gz",
                "0\n\n",
                "valid.csv.gz:2: `` is not a non-negative integer",
            ),
        ];
        for (member, text, want) in cases {
            let msg = convert_message(convert(bace(), &archive("", &[(member, text)])));
            assert!(msg.contains(want), "{member}: got `{msg}`, want `{want}`");
        }
    }

    /// Counts that disagree between files name both of them.
    #[test]
    fn count_mismatches_name_both_files() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "raw/num-node-list.csv.gz",
                "3\n3\n",
                "bace/raw/node-feat.csv.gz: 5 rows, but bace/raw/num-node-list.csv.gz sums to 6 atoms",
            ),
            (
                "raw/num-edge-list.csv.gz",
                "2\n2\n",
                "bace/raw/edge.csv.gz: 3 rows, but bace/raw/num-edge-list.csv.gz sums to 4 bonds",
            ),
            (
                "raw/num-edge-list.csv.gz",
                "3\n",
                "bace/raw/num-edge-list.csv.gz: 1 molecules, but bace/raw/num-node-list.csv.gz has 2",
            ),
            (
                "raw/edge-feat.csv.gz",
                "0,0,0\n3,0,1\n",
                "bace/raw/edge-feat.csv.gz: 2 rows, but bace/raw/num-edge-list.csv.gz sums to 3",
            ),
            (
                "raw/graph-label.csv.gz",
                "1\n0\n1\n",
                "bace/raw/graph-label.csv.gz: 3 rows for 2 molecules",
            ),
            (
                "raw/num-node-list.csv.gz",
                "18446744073709551615\n2\n",
                "num-node-list.csv.gz: the counts overflow",
            ),
        ];
        for (member, text, want) in cases {
            let msg = convert_message(convert(bace(), &archive("", &[(member, text)])));
            assert!(msg.contains(want), "{member}: got `{msg}`, want `{want}`");
        }
    }

    /// Decompression stops at the size limit; a corrupt gzip member is named.
    #[test]
    fn decompression_is_bounded_and_corrupt_gzip_is_named() {
        let msg = convert_message(convert_with_limit(bace(), &archive("", &[]), 40));
        assert!(msg.contains("size limit"), "{msg}");
        let mut a = archive("", &[]);
        let z = {
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            for n in a.names().map(str::to_owned).collect::<Vec<_>>() {
                let b = if n.ends_with("edge.csv.gz") {
                    b"\x1f\x8b\x08\0garbage".to_vec()
                } else {
                    a.get(&n).unwrap().to_vec()
                };
                w.start_file(n, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(&b).unwrap();
            }
            w.finish().unwrap().into_inner()
        };
        a = Archive::read(&z, "bace.zip", 1 << 20).unwrap();
        let msg = convert_message(convert(bace(), &a));
        assert!(
            msg.contains("bace/raw/edge.csv.gz: not a readable gzip stream"),
            "{msg}"
        );
    }

    /// OGB's float spelling (and noise) becomes the MoleculeNet spelling; class labels stay integers.
    #[test]
    fn real_labels_use_the_moleculenet_spelling() {
        for (ogb, mirror) in [
            ("3.54", "3.54"),
            ("-0.01", "-.01"),
            ("0.5", ".5"),
            ("1.0", "1"),
            ("-1.0", "-1"),
            ("0.0", "0"),
            ("-0.0", "0"),
            ("10.25", "10.25"),
            ("-4.593999999999999", "-4.594"),
            ("-4.5939999999999985", "-4.594"),
            ("3.5399999618530273", "3.54"),
            ("1e-05", ".00001"),
            ("3.14159", "3.14159"),
        ] {
            assert_eq!(decimal(ogb).as_deref(), Some(mirror), "{ogb}");
        }
        for bad in ["nan", "inf", "", "x", "1e-30"] {
            assert_eq!(decimal(bad), None, "{bad}");
        }
        assert_eq!(class_label("1").as_deref(), Some("1"));
        assert_eq!(class_label("-1").as_deref(), Some("-1"));
        assert_eq!(class_label("1.0").as_deref(), Some("1"));
        assert_eq!(class_label("0.5"), None);
        assert_eq!(class_label("-"), None);
    }

    /// The integer reader and writer, line splitting and empty files.
    #[test]
    fn ints_parse_and_write() {
        let mut v = Vec::new();
        for x in [0, 7, 10, 123_456, u64::MAX] {
            push_int(&mut v, x);
            v.push(b' ');
        }
        assert_eq!(v, b"0 7 10 123456 18446744073709551615 ");
        let spec = bace();
        let csv = Csv {
            spec,
            name: "f".into(),
            text: b"1, 2\r\n 3 ,4\n".to_vec(),
        };
        assert_eq!(csv.rows(), 2);
        let rows: Vec<[u64; 2]> = csv
            .lines()
            .map(|(no, l)| csv.ints::<2>(no, l).unwrap())
            .collect();
        assert_eq!(rows, [[1, 2], [3, 4]]);
        assert!(csv.int(1, b"18446744073709551616").is_err());
        let empty = Csv {
            spec,
            name: "e".into(),
            text: Vec::new(),
        };
        assert_eq!((empty.rows(), empty.lines().count()), (0, 0));
    }
}
