//! The machine a run or a benchmark ran on, as one line for `run.json` and the benchmark
//! reports: cores, CPU model, operating system, the vector instruction sets the kernels choose
//! between at run time (edgerefine's popcount: AVX-512 `VPOPCNTQ` or AVX2), and the cache sizes
//! that `/sys` reports (which `gemm`, burn-flex's matrix product, reads to choose its blocking,
//! so GAT's sums can differ between hosts that report different sizes).

use std::path::Path;

/// One cache level as `/sys/devices/system/cpu/cpu0/cache/index*` describes it.
#[derive(Debug)]
struct Cache {
    /// `1`, `2`, `3`.
    level: u8,
    /// `d` (data) or empty (unified).
    kind: &'static str,
    /// As the `size` file spells it, e.g. `48K`.
    size: String,
}

/// The data and unified caches under `dir` (a `…/cpu0/cache` folder), by level; instruction
/// caches are left out. An unreadable folder or entry gives no entry, never an error: the record
/// then says `caches unknown`.
fn caches_in(dir: &Path) -> Vec<Cache> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if !e.file_name().to_string_lossy().starts_with("index") {
            continue;
        }
        let read = |f: &str| std::fs::read_to_string(p.join(f)).map(|s| s.trim().to_owned());
        let (Ok(level), Ok(kind), Ok(size)) = (read("level"), read("type"), read("size")) else {
            continue;
        };
        let Ok(level) = level.parse::<u8>() else {
            continue;
        };
        let kind = match kind.as_str() {
            "Data" => "d",
            "Unified" => "",
            _ => continue,
        };
        out.push(Cache { level, kind, size });
    }
    out.sort_by_key(|c| (c.level, c.kind));
    out
}

/// The vector instruction sets of this x86-64 processor that the kernels or their libraries
/// dispatch on, in a fixed order; empty on other architectures.
fn isa() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut v = Vec::new();
        macro_rules! has {
            ($($f:tt => $name:expr),*) => {
                $(if std::arch::is_x86_feature_detected!($f) { v.push($name); })*
            };
        }
        has!(
            "popcnt" => "POPCNT", "avx2" => "AVX2", "fma" => "FMA",
            "avx512f" => "AVX-512F", "avx512bw" => "AVX-512BW", "avx512vl" => "AVX-512VL",
            "avx512vpopcntdq" => "AVX-512VPOPCNTDQ"
        );
        v
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// The `model name` of the first processor in a `/proc/cpuinfo` text.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_owned())
}

/// The line a record carries, from its parts (kept apart from the probing, for the tests).
fn line(cores: usize, cpu: &str, os: &str, isa: &[&str], caches: &[Cache]) -> String {
    let isa = if isa.is_empty() {
        "no x86-64 vector extensions detected".to_owned()
    } else {
        isa.join(" ")
    };
    let caches = if caches.is_empty() {
        "caches unknown".to_owned()
    } else {
        caches
            .iter()
            .map(|c| format!("L{}{} {}", c.level, c.kind, c.size))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{cores} cores, {cpu}, {os}; {isa}; {caches}")
}

/// This machine, as one line: e.g. `2 cores, AMD EPYC, Debian GNU/Linux 12 (bookworm); POPCNT
/// AVX2 FMA AVX-512F …; L1d 48K, L2 1024K, L3 32768K`.
pub(crate) fn describe() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| cpu_model(&t))
        .unwrap_or_else(|| "unknown CPU".into());
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines().find(|l| l.starts_with("PRETTY_NAME=")).map(|l| {
                l.trim_start_matches("PRETTY_NAME=")
                    .trim_matches('"')
                    .to_owned()
            })
        })
        .unwrap_or_else(|| std::env::consts::OS.to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let caches = caches_in(Path::new("/sys/devices/system/cpu/cpu0/cache"));
    line(cores, &cpu, &os, &isa(), &caches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(dir: &Path, i: usize, level: &str, kind: &str, size: &str) {
        let d = dir.join(format!("index{i}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
        std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
        std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
    }

    #[test]
    fn caches_are_read_by_level_without_the_instruction_cache() {
        let dir = tempfile::tempdir().unwrap();
        index(dir.path(), 3, "3", "Unified", "32768K");
        index(dir.path(), 0, "1", "Data", "48K");
        index(dir.path(), 1, "1", "Instruction", "32K");
        index(dir.path(), 2, "2", "Unified", "1024K");
        index(dir.path(), 4, "x", "Unified", "1K"); // not a level: left out
        std::fs::create_dir_all(dir.path().join("power")).unwrap();
        let caches = caches_in(dir.path());
        assert_eq!(
            line(2, "AMD EPYC", "Debian", &["AVX2"], &caches),
            "2 cores, AMD EPYC, Debian; AVX2; L1d 48K, L2 1024K, L3 32768K"
        );
    }

    #[test]
    fn a_missing_cache_folder_says_unknown_instead_of_failing() {
        let dir = tempfile::tempdir().unwrap();
        let caches = caches_in(&dir.path().join("absent"));
        assert!(caches.is_empty());
        assert_eq!(
            line(1, "cpu", "os", &[], &caches),
            "1 cores, cpu, os; no x86-64 vector extensions detected; caches unknown"
        );
    }

    #[test]
    fn the_model_is_the_first_processors() {
        let info =
            "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: other\n";
        assert_eq!(cpu_model(info).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(cpu_model("flags: avx2\n"), None);
    }

    #[test]
    fn this_machines_line_names_its_instruction_sets_and_caches() {
        let d = describe();
        assert!(d.contains(" cores, "), "{d}");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            assert!(d.contains("AVX2"), "{d}");
        }
    }
}
