//! The report page opened in a real browser: `cargo xtask report` redraws a copy of the
//! committed reference results and writes its `index.html`; headless Chromium loads it from a
//! file URL with name resolution off; the page must log no console message, every image must
//! load (natural width > 0) and every table must have rows. A screenshot is written to
//! `target/test-artifacts/report.png`.
//!
//! Without Chromium (`chromium`, `chromium-browser`, `google-chrome` or `$DPGRAPH_CHROMIUM`) the
//! test says so and passes, unless `DPGRAPH_REQUIRE_BROWSER=1` (set by `.ci/run`, which installs
//! Debian's `chromium`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DPGRAPH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|d| d.join(name))
                .find(|p| p.exists())
        })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            if e.file_name() != "cache" {
                copy_dir(&src, &dst);
            }
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

const CHECK: &str = r#"<!DOCTYPE html><html><body>
<iframe id="f" src="index.html" style="width:1280px;height:900px"></iframe>
<script>
window.addEventListener('load', () => {
  const d = document.getElementById('f').contentDocument;
  const imgs = [...d.images];
  const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt);
  const tables = [...d.querySelectorAll('table')];
  const empty = tables.filter(t => t.tBodies.length == 0 || t.tBodies[0].rows.length == 0)
    .map(t => (t.closest('section') || {}).id);
  const out = document.createElement('pre');
  out.id = 'result';
  out.textContent = JSON.stringify({images: imgs.length, bad, tables: tables.length, empty,
    sections: d.querySelectorAll('section').length});
  document.body.appendChild(out);
});
</script></body></html>"#;

/// Runs headless Chromium with the network's names unresolvable; returns (stdout, stderr).
fn run(browser: &Path, args: &[&str]) -> (String, String) {
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--allow-file-access-from-files",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .args(args)
        .output()
        .expect("run chromium");
    assert!(
        o.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn reference_report_loads_in_chromium_with_every_image_and_table() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("DPGRAPH_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "DPGRAPH_REQUIRE_BROWSER=1 but no Chromium found (apt-get install chromium)"
        );
        eprintln!("SKIPPED: no Chromium found (install Debian's `chromium` to run this test)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("results");
    copy_dir(&root.join("results"), &out);
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["report", "--dir", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    let without_ns = page.replace("http://www.w3.org/2000/svg", "");
    for remote in ["http://", "https://", "<script", "<link", "src=\"//"] {
        assert!(!without_ns.contains(remote), "the page refers to {remote}");
    }
    std::fs::write(out.join("check.html"), CHECK).unwrap();
    let url = format!("file://{}", out.join("check.html").display());
    let (dom, log) = run(
        &browser,
        &["--virtual-time-budget=20000", "--dump-dom", &url],
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    let start = dom.find("<pre id=\"result\">").expect("the check ran") + 17;
    let json = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let r: serde_json::Value = serde_json::from_str(&json.replace("&amp;", "&")).unwrap();
    let svgs = std::fs::read_dir(&out)
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).into_iter().flatten())
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svg"))
        })
        .count() as u64;
    assert_eq!(r["sections"], 5, "{r}");
    assert_eq!(
        r["images"].as_u64(),
        Some(svgs),
        "every plot is on the page: {r}"
    );
    assert_eq!(
        r["bad"],
        serde_json::json!([]),
        "images that did not load: {r}"
    );
    assert!(r["tables"].as_u64().unwrap() >= 15, "{r}");
    assert_eq!(
        r["empty"],
        serde_json::json!([]),
        "tables without rows: {r}"
    );

    let artefacts = root.join("target").join("test-artifacts");
    std::fs::create_dir_all(&artefacts).unwrap();
    let shot = artefacts.join("report.png");
    let _ = std::fs::remove_file(&shot);
    run(
        &browser,
        &[
            "--hide-scrollbars",
            "--window-size=1280,2400",
            &format!("--screenshot={}", shot.display()),
            &format!("file://{}", out.join("index.html").display()),
        ],
    );
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 20_000,
        "screenshot {} has {size} bytes",
        shot.display()
    );
}
