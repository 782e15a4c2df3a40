//! Installing from upstream archives: the real EdgeRefine zip served over HTTP on 127.0.0.1 and
//! read from a directory; TU and DGCNN zips built from the installed mirror data in the layout
//! their publishers ship; the embedded copies; and the faults (truncated archive, wrong
//! checksum, members escaping the target, a decompression bomb, HTTP 404, a stalled server).
//! Every fault must leave nothing installed and no temporary files.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use graph_core::install::{
    Archive, Origin, Quiet, Report, UpstreamInstaller, UpstreamOutcome, convert_archive,
    install_all,
};
use graph_core::registry::{DatasetSpec, SourceFormat, Upstream, sha256_hex};
use graph_core::{GraphError, Registry};

mod common;
use common::require;

/// `../shared/upstream` beside the project (the real upstream archives), if present.
fn shared_upstream() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream");
    if p.join("EdgeRefine-datasets.zip").is_file() {
        Some(p)
    } else {
        assert!(
            !require(),
            "DPGRAPH_REQUIRE_DATA=1 but {} is missing",
            p.display()
        );
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

fn spec(name: &str) -> &'static DatasetSpec {
    Registry::embedded().get(name).unwrap()
}

/// The installed mirror copy of `name` in `$DPGRAPH_DATA`, if installed.
fn installed(name: &str) -> Option<PathBuf> {
    common::installed_folder(name).map(|(_, dir)| dir)
}

/// What the test server does with each request.
#[derive(Clone, Copy)]
enum Mode {
    /// Serve files under the root; 404 for the rest.
    Files,
    /// Accept, read the request, never answer.
    Stall,
    /// Announce the full length, send half, close.
    Truncate,
}

/// A minimal HTTP/1.1 server on 127.0.0.1 for at most `requests` connections, each bounded to
/// a few seconds; returns its base URL.
fn serve(root: PathBuf, mode: Mode, requests: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                    break;
                }
            }
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .to_owned();
            let file = root.join(path.trim_start_matches('/'));
            match mode {
                Mode::Stall => {
                    std::thread::sleep(Duration::from_secs(3));
                }
                Mode::Files | Mode::Truncate => {
                    let (status, body) = match std::fs::read(&file) {
                        Ok(b) => ("200 OK", b),
                        Err(_) => ("404 Not Found", b"not found".to_vec()),
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let cut = if matches!(mode, Mode::Truncate) {
                        body.len() / 2
                    } else {
                        body.len()
                    };
                    let _ = stream.write_all(&body[..cut]);
                }
            }
        }
    });
    format!("http://{addr}")
}

/// Asserts that `dir` holds nothing but installed dataset folders (no `.install-*`/`.old-*`)
/// and the installers' lock file (kept: removing a lock file others may wait on breaks it).
fn assert_no_temporaries(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                !n.starts_with('.') || n == ".install.lock",
                "temporary {n} left in {}",
                dir.display()
            );
        }
    }
}

fn installer(base: &str) -> UpstreamInstaller {
    UpstreamInstaller::new()
        .with_base(Some(base.to_owned()))
        .with_embedded(false)
        .with_timeout(Duration::from_secs(1))
}

/// Checks every installed required file of `name` against the registry.
fn assert_registry_bytes(name: &str, data: &Path) {
    let s = spec(name);
    for f in s.required_files() {
        let b = std::fs::read(s.dir(data).join(&f.path)).unwrap();
        assert_eq!(Some(sha256_hex(&b)), f.sha256, "{name}/{}", f.path);
    }
    s.load(data).unwrap();
}

#[test]
fn edgerefine_zip_over_http_and_from_a_directory() {
    let Some(up) = shared_upstream() else { return };
    let names = ["cora", "acm", "dblp", "amap", "MUTAG"];
    // Over HTTP: MUTAG's first source (the TU site's zip) is not served here, so it 404s, is
    // reported, and the EdgeRefine zip is used instead.
    let data = tempfile::tempdir().unwrap();
    let url = serve(up.clone(), Mode::Files, 16);
    let mut inst = installer(&url);
    for n in names {
        let t = Instant::now();
        let mut notes = Notes::default();
        let out = inst.install(spec(n), data.path(), &mut notes).unwrap();
        let UpstreamOutcome::Installed { source, .. } = out else {
            panic!("{n}: {out:?}")
        };
        assert!(source.contains("EdgeRefine-datasets.zip"), "{source}");
        eprintln!(
            "{n}: installed over HTTP in {:.2} s",
            t.elapsed().as_secs_f64()
        );
        assert_registry_bytes(n, data.path());
        if n == "MUTAG" {
            assert_eq!(notes.0.len(), 1, "{:?}", notes.0);
            assert!(
                notes.0[0].contains("MUTAG.zip") && notes.0[0].contains("404"),
                "{:?}",
                notes.0
            );
        }
    }
    assert_no_temporaries(data.path());
    assert_eq!(
        inst.install(spec("cora"), data.path(), &mut Quiet).unwrap(),
        UpstreamOutcome::AlreadyInstalled
    );

    // From the directory itself, through the batch entry point the CLIs use.
    let data = tempfile::tempdir().unwrap();
    let specs: Vec<_> = names.iter().map(|n| spec(n)).collect();
    let origin = Origin::Upstream {
        base: Some(up.display().to_string()),
        offline: false,
        timeout: Duration::from_secs(5),
    };
    let t = Instant::now();
    let reports = install_all(&specs, &origin, data.path(), &mut Quiet);
    eprintln!(
        "5 datasets from the directory in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    for (n, r) in &reports {
        assert!(matches!(r, Report::Installed { .. }), "{}", r.line(n));
        assert_registry_bytes(n, data.path());
    }
}

#[derive(Default)]
struct Notes(Vec<String>);
impl graph_core::install::Progress for Notes {
    fn note(&mut self, line: &str) {
        self.0.push(line.to_owned());
    }
}

fn zip_of(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (n, b) in entries {
        w.start_file(n.as_str(), opts).unwrap();
        w.write_all(b).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn source(name: &str, format: SourceFormat) -> Upstream {
    spec(name)
        .upstream
        .iter()
        .find(|u| u.format == format)
        .cloned()
        .unwrap()
}

/// A TU zip as the TU site ships it (`NAME/NAME_A.txt`, …, uncompressed files), built from the
/// installed mirror copy, converts back to the registry's bytes.
#[test]
fn tu_zips_round_trip_to_the_registry() {
    for name in ["MUTAG", "IMDB-BINARY", "PROTEINS", "NCI1"] {
        let Some(dir) = installed(name) else { continue };
        let s = spec(name);
        let entries: Vec<(String, Vec<u8>)> = s
            .required_files()
            .map(|f| {
                let b = std::fs::read(dir.join(&f.path)).unwrap();
                match f.path.strip_suffix(".gz") {
                    Some(p) => (format!("{name}/{p}"), gunzip(&b)),
                    None => (format!("{name}/{}", f.path), b),
                }
            })
            .collect();
        let z = zip_of(&entries);
        let archive = Archive::read(&z, &format!("{name}.zip"), 1 << 30).unwrap();
        let files = convert_archive(s, &source(name, SourceFormat::Files), &archive).unwrap();
        for f in s.required_files() {
            assert_eq!(
                Some(sha256_hex(&files[&f.path])),
                f.sha256,
                "{name}/{}",
                f.path
            );
        }
    }
}

/// REDDIT-BINARY in the DGCNN text format (as the IHGNN zip ships it), built from the installed
/// TU files with each node's neighbours in reverse order, converts to the registry's bytes,
/// including the two `gzip -9 -n` files.
#[test]
fn dgcnn_zip_round_trips_to_the_registry() {
    let name = "REDDIT-BINARY";
    let Some(dir) = installed(name) else { return };
    let read = |f: &str| String::from_utf8(gunzip(&std::fs::read(dir.join(f)).unwrap())).unwrap();
    let indicator: Vec<usize> = read("REDDIT-BINARY_graph_indicator.txt.gz")
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let labels = std::fs::read_to_string(dir.join("REDDIT-BINARY_graph_labels.txt")).unwrap();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); indicator.len()];
    for l in read("REDDIT-BINARY_A.txt.gz").lines() {
        let (u, v) = l.split_once(", ").unwrap();
        let (u, v): (usize, usize) = (u.parse().unwrap(), v.parse().unwrap());
        adj[u - 1].push(v - 1);
    }
    let mut text = format!("{}\n", labels.lines().count());
    let mut start = 0;
    for (g, label) in labels.lines().enumerate() {
        let end = start
            + indicator[start..]
                .iter()
                .take_while(|&&x| x == g + 1)
                .count();
        let dl = if label == "1" { "2" } else { "0" };
        text.push_str(&format!("{} {dl}\n", end - start));
        for nbrs in &adj[start..end] {
            let nb: Vec<String> = nbrs.iter().rev().map(|v| (v - start).to_string()).collect();
            text.push_str(&format!("0 {} {}\n", nb.len(), nb.join(" ")).replace("  ", " "));
        }
        start = end;
    }
    let mut entries = vec![(
        format!("{name}/{name}.txt"),
        text.trim_end().replace(" \n", "\n").into_bytes(),
    )];
    for f in spec(name).required_files() {
        if let Some(fold) = f.path.strip_prefix("splits_dgcnn_10fold/") {
            entries.push((
                format!("{name}/10fold_idx/{fold}"),
                std::fs::read(dir.join(&f.path)).unwrap(),
            ));
        }
    }
    entries.push((format!("{name}/.DS_Store"), vec![0; 10]));
    let z = zip_of(&entries);
    let archive = Archive::read(&z, "REDDIT-BINARY.zip", 1 << 30).unwrap();
    let files =
        convert_archive(spec(name), &source(name, SourceFormat::DgcnnZip), &archive).unwrap();
    for f in spec(name).required_files() {
        assert_eq!(
            Some(sha256_hex(&files[&f.path])),
            f.sha256,
            "{name}/{}",
            f.path
        );
    }
}

#[test]
fn concurrent_installs_into_one_folder_leave_one_good_copy() {
    // Threads of one process share the pid-named temporary folder and readers must never see
    // a copy renamed away: the install lock serialises them.
    let data = tempfile::tempdir().unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let r = graph_core::install::UpstreamInstaller::new()
                    .install_embedded_only(spec("MUTAG"), data.path())
                    .unwrap();
                let ds = spec("MUTAG").load(data.path()).unwrap();
                (r, ds)
            });
        }
    });
    assert_registry_bytes("MUTAG", data.path());
    assert_no_temporaries(data.path());
}

#[test]
fn embedded_copies_install_with_no_network() {
    let data = tempfile::tempdir().unwrap();
    let origin = Origin::Upstream {
        base: Some("/nonexistent/upstream".into()),
        offline: true,
        timeout: Duration::from_secs(1),
    };
    let specs = [
        spec("cora"),
        spec("MUTAG"),
        spec("HIV"),
        spec("amlsim-small"),
    ];
    let reports = install_all(&specs, &origin, data.path(), &mut Quiet);
    let lines: Vec<String> = reports.iter().map(|(n, r)| r.line(n)).collect();
    assert!(
        matches!(reports[0].1, Report::Installed { .. }),
        "{lines:?}"
    );
    assert!(
        matches!(reports[1].1, Report::Installed { .. }),
        "{lines:?}"
    );
    assert!(matches!(reports[2].1, Report::Skipped { .. }), "{lines:?}");
    assert!(matches!(reports[3].1, Report::Skipped { .. }), "{lines:?}");
    assert_registry_bytes("cora", data.path());
    assert_registry_bytes("MUTAG", data.path());
    assert_no_temporaries(data.path());
    // Online, a dataset with no plain download is skipped with its manual steps, not failed.
    let origin = Origin::Upstream {
        base: Some("/nonexistent/upstream".into()),
        offline: false,
        timeout: Duration::from_secs(1),
    };
    let r = install_all(&[spec("amlworld-sample")], &origin, data.path(), &mut Quiet);
    assert!(
        r[0].1.line("amlworld-sample").contains("Kaggle"),
        "{}",
        r[0].1.line("x")
    );
}

/// A one-dataset registry whose single file is `a.txt` = "hello\n", with one `files` source.
fn toy(url: &str, sha: Option<&str>, bytes: Option<usize>) -> graph_core::Registry {
    let extra = match (sha, bytes) {
        (Some(s), Some(b)) => format!(", sha256 = '{s}', bytes = {b}"),
        _ => String::new(),
    };
    Registry::from_toml_str(&format!(
        "[[dataset]]\nname='toy'\ntask='transactions'\nlayout='aml-files'\ndescription=''\n\
         upstream=[{{ url = '{url}', format = 'files'{extra} }}]\n\
         [[dataset.files]]\npath='a.txt'\nsha256='{}'\nbytes=6\n",
        sha256_hex(b"hello\n")
    ))
    .unwrap()
}

fn fail(reg: &graph_core::Registry, base: &str) -> GraphError {
    let data = tempfile::tempdir().unwrap();
    let e = installer(base)
        .install(reg.get("toy").unwrap(), data.path(), &mut Quiet)
        .unwrap_err();
    assert_eq!(
        std::fs::read_dir(data.path()).map_or(0, |r| r.count()),
        0,
        "{e}: something was left"
    );
    e
}

#[test]
fn faults_are_clear_errors_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let put = |name: &str, b: &[u8]| std::fs::write(dir.path().join(name), b).unwrap();
    let base = dir.path().display().to_string();
    let good = zip_of(&[("toy/a.txt".into(), b"hello\n".to_vec())]);
    put("good.zip", &good);
    // Sanity: the good archive installs.
    let data = tempfile::tempdir().unwrap();
    installer(&base)
        .install(
            toy("https://h/good.zip", None, None).get("toy").unwrap(),
            data.path(),
            &mut Quiet,
        )
        .unwrap();

    // Truncated archive, against a recorded size and without one.
    put("cut.zip", &good[..good.len() - 20]);
    let e = fail(
        &toy(
            "https://h/cut.zip",
            Some(&sha256_hex(&good)),
            Some(good.len()),
        ),
        &base,
    );
    assert!(e.to_string().contains("truncated"), "{e}");
    let e = fail(&toy("https://h/cut.zip", None, None), &base);
    assert!(e.to_string().contains("archive cut.zip"), "{e}");
    // Wrong archive checksum.
    let e = fail(
        &toy(
            "https://h/good.zip",
            Some(&"0".repeat(64)),
            Some(good.len()),
        ),
        &base,
    );
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
    // Converted bytes that differ from the registry.
    put(
        "other.zip",
        &zip_of(&[("toy/a.txt".into(), b"HELLO\n".to_vec())]),
    );
    let e = fail(&toy("https://h/other.zip", None, None), &base);
    assert!(
        e.to_string().contains("checksum mismatch for toy/a.txt"),
        "{e}"
    );
    // Members escaping the target folder.
    for (i, bad) in ["../a.txt", "/etc/a.txt", "x\\..\\..\\a.txt"]
        .iter()
        .enumerate()
    {
        put(
            &format!("evil{i}.zip"),
            &zip_of(&[((*bad).into(), b"hello\n".to_vec())]),
        );
        let e = fail(&toy(&format!("https://h/evil{i}.zip"), None, None), &base);
        assert!(
            e.to_string().contains("escapes") || e.to_string().contains("absolute"),
            "{e}"
        );
    }
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.add_symlink(
        "toy/a.txt",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    put("link.zip", &w.finish().unwrap().into_inner());
    let e = fail(&toy("https://h/link.zip", None, None), &base);
    assert!(e.to_string().contains("symbolic link"), "{e}");
    // A decompression bomb: 64 MiB of zeros; the limit derived from the registry (6 bytes)
    // is 64 x 6 + 16 MiB.
    let bomb = zip_of(&[("toy/a.txt".into(), vec![0u8; 64 << 20])]);
    assert!(bomb.len() < 1 << 20);
    put("bomb.zip", &bomb);
    let e = fail(&toy("https://h/bomb.zip", None, None), &base);
    assert!(e.to_string().contains("decompression bomb"), "{e}");

    // HTTP: 404, a server that stalls, a body cut short.
    let url = serve(dir.path().to_path_buf(), Mode::Files, 2);
    let e = fail(&toy("https://h/missing.zip", None, None), &url);
    assert!(e.to_string().contains("404"), "{e}");
    let url = serve(dir.path().to_path_buf(), Mode::Stall, 2);
    let t = Instant::now();
    let e = fail(&toy("https://h/good.zip", None, None), &url);
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "the 1 s timeout was not applied"
    );
    assert!(
        e.to_string().to_lowercase().contains("timeout") || e.to_string().contains("timed out"),
        "{e}"
    );
    let url = serve(dir.path().to_path_buf(), Mode::Truncate, 2);
    let e = fail(&toy("https://h/good.zip", None, None), &url);
    assert!(matches!(e, GraphError::Upstream { .. }), "{e}");
}

/// The registry: every dataset has a source or manual steps, every installable source is an
/// http(s) URL, known archive checksums are well-formed, and the embedded datasets exist.
#[test]
fn registry_sources_are_complete() {
    let mut by_origin: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for d in Registry::embedded().datasets() {
        by_origin.entry(d.origin()).or_default().push(&d.name);
        if d.origin() == "manual" {
            assert!(
                d.manual.is_some(),
                "{} has neither a download nor manual steps",
                d.name
            );
        }
    }
    assert_eq!(by_origin["embedded"], ["cora", "MUTAG"]);
    assert_eq!(by_origin["manual"], ["amlworld-sample", "amlsim-small"]);
}

/// `--from URL`: a mirror of converted files over HTTP installs and verifies; a wrong file is a
/// checksum error naming it, and a fresh data directory keeps nothing.
#[test]
fn mirror_over_http() {
    let Some(mutag) = installed("MUTAG") else {
        return;
    };
    let served = tempfile::tempdir().unwrap();
    let copy = served.path().join("MUTAG");
    std::fs::create_dir_all(&copy).unwrap();
    for f in &spec("MUTAG").files {
        std::fs::copy(mutag.join(&f.path), copy.join(&f.path)).unwrap();
    }
    let url = serve(served.path().to_path_buf(), Mode::Files, 16);
    let data = tempfile::tempdir().unwrap();
    let r = install_all(
        &[spec("MUTAG")],
        &Origin::Mirror(url.clone()),
        data.path(),
        &mut Quiet,
    );
    assert!(
        matches!(r[0].1, Report::Installed { .. }),
        "{}",
        r[0].1.line("MUTAG")
    );
    assert_registry_bytes("MUTAG", data.path());

    std::fs::write(copy.join("README.txt"), b"changed").unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = install_all(
        &[spec("MUTAG")],
        &Origin::Mirror(url),
        data.path(),
        &mut Quiet,
    );
    let line = r[0].1.line("MUTAG");
    assert!(
        line.contains("checksum mismatch for MUTAG/README.txt"),
        "{line}"
    );
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}

/// The AMLSim sample tgz (`20K_fanin200cycle200/*.csv` plus plots), built from the installed
/// mirror copy, converts to the registry's bytes: CSVs gzipped as `gzip -9 -n`.
#[test]
fn amlsim_tgz_round_trips_to_the_registry() {
    let name = "amlsim-sample-20k";
    let Some(dir) = installed(name) else { return };
    let mut tb = tar::Builder::new(Vec::new());
    let mut add = |path: &str, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tb.append_data(&mut h, path, data).unwrap();
    };
    for f in spec(name).required_files() {
        let b = std::fs::read(dir.join(&f.path)).unwrap();
        match f.path.strip_suffix(".gz") {
            Some(p) => add(&format!("20K_fanin200cycle200/{p}"), &gunzip(&b)),
            None => add(&format!("20K_fanin200cycle200/{}", f.path), &b),
        }
    }
    add("20K_fanin200cycle200/degree.png", b"\x89PNG fake");
    let tar = tb.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar).unwrap();
    let tgz = gz.finish().unwrap();
    let archive = Archive::read(&tgz, "20K_fanin200cycle200.tgz", 1 << 30).unwrap();
    let files = convert_archive(spec(name), &source(name, SourceFormat::Files), &archive).unwrap();
    for f in spec(name).required_files() {
        assert_eq!(
            Some(sha256_hex(&files[&f.path])),
            f.sha256,
            "{name}/{}",
            f.path
        );
    }
}

/// With no network (here: a closed port), every source is tried and reported, and later URLs on
/// a host that could not be reached fail at once instead of waiting for the timeout again.
#[test]
fn unreachable_hosts_fail_fast_and_every_source_is_reported() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let reg = Registry::from_toml_str(&format!(
        "[[dataset]]\nname='toy'\ntask='transactions'\nlayout='aml-files'\ndescription=''\n\
         upstream=[{{ url = 'https://a/x.zip', format = 'files' }}, {{ url = 'https://b/y.zip', format = 'files' }}]\n\
         [[dataset.files]]\npath='a.txt'\nsha256='{}'\nbytes=6\n",
        sha256_hex(b"hello\n")
    ))
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut notes = Notes::default();
    let e = installer(&format!("http://127.0.0.1:{port}"))
        .install(reg.get("toy").unwrap(), data.path(), &mut notes)
        .unwrap_err();
    assert!(matches!(e, GraphError::Upstream { .. }), "{e}");
    assert_eq!(notes.0.len(), 2, "{:?}", notes.0);
    assert!(notes.0[0].contains("x.zip"), "{:?}", notes.0);
    assert!(
        notes.0[1].contains("y.zip") && notes.0[1].contains("unreachable earlier"),
        "{:?}",
        notes.0
    );
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}
