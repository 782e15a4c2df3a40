//! The book's command-line reference (`docs/src/reference/cli.md`), generated from this parser
//! so that it cannot drift: the test renders every command's `--help` and fails when the
//! committed page differs; `DPGRAPH_BLESS=1 cargo test -p dpgraph cli_reference` rewrites it.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::CommandFactory;

use crate::Cli;

/// The page: an introduction, then each command's long help, depth first, in the parser's
/// order (hidden commands and `help` left out).
fn page() -> String {
    let mut root = Cli::command().term_width(100);
    root.build();
    let mut out = String::from(
        "# Command-line reference\n\n\
         Every command of `dpgraph` with its `--help`, generated from the parser \
         (`crates/dpgraph/src/cli_reference.rs`: a test fails when this page is stale). \
         Every command also takes `--json` (one JSON object on stdout) and `--seed S` \
         (reproducible, and therefore not private, noise).\n",
    );
    section(&mut root, &mut out);
    out
}

fn section(cmd: &mut clap::Command, out: &mut String) {
    let name = cmd
        .get_bin_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_owned();
    let help = cmd.render_long_help().to_string();
    let help: Vec<&str> = help.lines().map(str::trim_end).collect();
    let _ = write!(
        out,
        "\n## `{name}`\n\n```text\n{}\n```\n",
        help.join("\n").trim_end()
    );
    for sub in cmd.get_subcommands_mut() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        section(sub, out);
    }
}

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/src/reference/cli.md")
}

#[test]
fn the_books_cli_reference_is_what_the_parser_prints() {
    let want = page();
    if std::env::var_os("DPGRAPH_BLESS").is_some() {
        std::fs::write(path(), &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(path()).unwrap_or_default();
    assert!(
        have == want,
        "docs/src/reference/cli.md is stale: rerun with DPGRAPH_BLESS=1 cargo test -p dpgraph cli_reference"
    );
    // Every command is on the page.
    for cmd in [
        "dpgraph edgerefine perturb",
        "dpgraph homdp embed",
        "dpgraph fed simulate",
    ] {
        assert!(want.contains(&format!("## `{cmd}`")), "{cmd}");
    }
}
