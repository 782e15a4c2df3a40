//! The copies of Cora and MUTAG compiled into the library (`datasets/embedded/`, see its
//! README for the licences): deterministic tar.gz archives of the installed files.

/// The archive of dataset `name`, if one is embedded.
pub(super) fn archive(name: &str) -> Option<&'static [u8]> {
    match name {
        "cora" => Some(include_bytes!("../../datasets/embedded/cora.tar.gz")),
        "MUTAG" => Some(include_bytes!("../../datasets/embedded/MUTAG.tar.gz")),
        _ => None,
    }
}

/// The archive's file name, for messages.
pub(super) fn file_name(name: &str) -> String {
    format!("datasets/embedded/{name}.tar.gz")
}
