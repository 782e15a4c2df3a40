//! The command line's typed choices: a clap parser from each enum's one list of names
//! ([`graph_core::choice::Choice`]), and `dpgraph choices`, which prints every list (the Python
//! module's `dpgraph.choices()` prints the same; a test compares the two).

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use graph_core::choice::Choice;
use serde_json::{Map, Value, json};

use crate::{Global, emit};

/// A clap value parser accepting exactly `T`'s names (and its older spellings, hidden), with
/// each value's help line in `--help`.
pub(crate) fn parser<T: Choice + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::ALL.iter().map(|c| {
        // The first sentence: `--help` lists the values one a line.
        PossibleValue::new(c.name())
            .help(first_sentence(c.help()))
            .aliases(c.aliases().iter().copied())
    }))
    .try_map(|s| T::from_name(&s))
}

/// The first sentence of a doc comment as plain text: it ends at the first ". " that does not
/// follow an abbreviation ("et al.", "e.g.", an initial), and rustdoc links (`` [`A::b`] ``)
/// become their text (`A::b`).
fn first_sentence(doc: &str) -> String {
    const ABBREVIATIONS: [&str; 8] = ["al", "e.g", "i.e", "cf", "vs", "Prop", "Thm", "Eq"];
    let mut end = doc.len();
    let mut from = 0;
    while let Some(at) = doc[from..].find(". ") {
        let stop = from + at;
        let word = doc[..stop]
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("");
        let initial = word.len() == 1 && word.chars().all(char::is_uppercase);
        if !initial && !ABBREVIATIONS.contains(&word) {
            end = stop;
            break;
        }
        from = stop + 2;
    }
    doc[..end]
        .trim_end_matches('.')
        .replace("[`", "`")
        .replace("`]", "`")
        .replace('`', "")
}

/// One choice's listing: what it chooses, its names, and its older spellings.
fn listing<T: Choice>() -> (&'static str, Value) {
    let aliases: Map<String, Value> = T::ALL
        .iter()
        .filter(|c| !c.aliases().is_empty())
        .map(|c| (c.name().to_owned(), json!(c.aliases())))
        .collect();
    (T::WHAT, json!({ "names": T::names(), "aliases": aliases }))
}

/// Every choice a front end offers, by what it chooses.
pub(crate) fn all() -> Map<String, Value> {
    [
        listing::<homdp::SensitivityBound>(),
        listing::<edgerefine::TieBreak>(),
        listing::<edgerefine::ArtifactCalibration>(),
        listing::<edgerefine::Backend>(),
        listing::<edgerefine::baselines::Baseline>(),
        listing::<cefedgnn::train::Method>(),
        listing::<cefedgnn::train::ModelKind>(),
        listing::<cefedgnn::train::PartitionKind>(),
        listing::<cefedgnn::train::AmlSplit>(),
        listing::<cefedgnn::train::Preset>(),
        listing::<cefedgnn::estimator::GradientMode>(),
    ]
    .into_iter()
    .map(|(what, v)| (what.to_owned(), v))
    .collect()
}

/// `dpgraph choices`: every named choice with its names (`--json`: one object).
pub(crate) fn run(global: Global) -> anyhow::Result<()> {
    let all = all();
    if global.json {
        return emit(global, &Value::Object(all));
    }
    for (what, v) in &all {
        let names: Vec<&str> = v["names"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        println!("{what}: {}", names.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A help line is the doc's first sentence, abbreviations and initials inside it kept, and
    /// rustdoc links as plain names.
    #[test]
    fn help_lines_are_first_sentences_in_plain_text() {
        assert_eq!(
            super::first_sentence(
                "Baseline FedGCN (Yao et al. 2023, 1-hop): one exchange. Then more."
            ),
            "Baseline FedGCN (Yao et al. 2023, 1-hop): one exchange"
        );
        assert_eq!(
            super::first_sentence(
                "Sampled clients ([`FedTrainConfig::swift_clients`]) take a step."
            ),
            "Sampled clients (FedTrainConfig::swift_clients) take a step"
        );
        assert_eq!(
            super::first_sentence("J. Smith's sampler, e.g. ours"),
            "J. Smith's sampler, e.g. ours"
        );
    }
    use clap::CommandFactory;

    /// Every flag of every subcommand that takes one of a fixed set of values offers exactly
    /// the names of one listed choice: the CLI translates no string on its own.
    #[test]
    fn every_flag_with_fixed_values_offers_one_listed_choice() {
        let lists: Vec<Vec<String>> = super::all()
            .values()
            .map(|v| {
                v["names"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        let mut found = Vec::new();
        let mut stack = vec![(String::from("dpgraph"), crate::Cli::command())];
        while let Some((path, cmd)) = stack.pop() {
            for arg in cmd.get_arguments() {
                let values = arg.get_possible_values();
                if !arg.get_action().takes_values() || values.is_empty() {
                    continue;
                }
                let names: Vec<String> = values
                    .iter()
                    .filter(|v| !v.is_hide_set())
                    .map(|v| v.get_name().to_owned())
                    .collect();
                let flag = format!("{path} --{}", arg.get_id());
                assert!(
                    lists.contains(&names),
                    "{flag}: {names:?} is no listed choice"
                );
                found.push(flag);
            }
            for sub in cmd.get_subcommands() {
                stack.push((format!("{path} {}", sub.get_name()), sub.clone()));
            }
        }
        found.sort();
        assert_eq!(
            found,
            [
                "dpgraph edgerefine refine --calibration",
                "dpgraph edgerefine refine --tie_break",
                "dpgraph fed partition --partition",
                "dpgraph fed partition --split",
                "dpgraph fed simulate --gradient",
                "dpgraph fed simulate --method",
                "dpgraph fed simulate --model",
                "dpgraph fed simulate --partition",
                "dpgraph fed simulate --split",
                "dpgraph homdp embed --bound",
            ]
        );
    }

    #[test]
    fn older_spellings_still_parse() {
        let cli = <crate::Cli as clap::Parser>::try_parse_from([
            "dpgraph",
            "fed",
            "simulate",
            "--dataset",
            "cora",
            "--method",
            "no-sharing",
        ])
        .unwrap();
        let crate::Command::Fed(crate::fed_cmd::FedCmd::Simulate { method, .. }) = cli.command
        else {
            panic!("parsed as fed simulate")
        };
        assert_eq!(method, cefedgnn::train::Method::NoSharing);
        let bad = <crate::Cli as clap::Parser>::try_parse_from([
            "dpgraph",
            "homdp",
            "embed",
            "--graphs",
            "g.json",
            "--rho",
            "1",
            "--num-patterns",
            "2",
            "--out",
            "x.npy",
            "--bound",
            "loose",
        ]);
        let msg = bad.unwrap_err().to_string();
        assert!(
            msg.contains("component-aware") && msg.contains("loose"),
            "{msg}"
        );
    }
}
