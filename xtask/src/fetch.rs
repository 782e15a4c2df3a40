//! Dataset sources for `cargo xtask datasets install --from`: a mirror directory or an HTTP(S)
//! base URL laid out as `<base>/<dataset>/<file>`.

use std::io::Read;

use graph_core::registry::{Fetch, MirrorDir};

/// An HTTP(S) server with the mirror layout.
pub(crate) struct HttpBase {
    base: String,
    agent: ureq::Agent,
}

impl HttpBase {
    pub(crate) fn new(base: &str) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(std::time::Duration::from_secs(300)))
            .build()
            .into();
        Self {
            base: base.trim_end_matches('/').to_owned(),
            agent,
        }
    }
}

impl Fetch for HttpBase {
    fn fetch(&self, dataset: &str, file: &str) -> std::io::Result<Vec<u8>> {
        let url = format!("{}/{dataset}/{file}", self.base);
        let resp = self
            .agent
            .get(&url)
            .call()
            .map_err(|e| std::io::Error::other(format!("GET {url}: {e}")))?;
        let mut bytes = Vec::new();
        resp.into_body()
            .into_reader()
            .read_to_end(&mut bytes)
            .map_err(|e| std::io::Error::other(format!("GET {url}: {e}")))?;
        Ok(bytes)
    }

    fn describe(&self) -> String {
        self.base.clone()
    }
}

/// The source named by `--from` (a URL when it starts with `http://` or `https://`).
pub(crate) fn source(from: &str) -> Box<dyn Fetch> {
    if from.starts_with("http://") || from.starts_with("https://") {
        Box::new(HttpBase::new(from))
    } else {
        Box::new(MirrorDir(from.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::registry::{InstallOutcome, Registry, install};
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::path::PathBuf;

    /// A minimal HTTP/1.1 file server on 127.0.0.1 serving `root`, for `requests` requests.
    fn serve(root: PathBuf, requests: usize) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(requests) {
                let mut stream = stream.unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                        break;
                    }
                }
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .to_owned();
                let file = root.join(path.trim_start_matches('/'));
                let (status, body) = match std::fs::read(&file) {
                    Ok(b) => ("200 OK", b),
                    Err(_) => ("404 Not Found", b"not found".to_vec()),
                };
                write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                )
                .unwrap();
                stream.write_all(&body).unwrap();
            }
        });
        format!("http://{addr}")
    }

    fn registry(sha_b: &str) -> Registry {
        let sha_a = graph_core::registry::sha256_hex(b"h\n1\n");
        Registry::from_toml_str(&format!(
            "[[dataset]]\nname='toy'\ntask='transactions'\nlayout='aml-files'\ndescription=''\nupstream=[]\n\
             [[dataset.files]]\npath='a.csv'\nsha256='{sha_a}'\nbytes=4\n\
             [[dataset.files]]\npath='sub/b.csv'\nsha256='{sha_b}'\nbytes=3\n"
        ))
        .unwrap()
    }

    #[test]
    fn http_install_from_local_server() {
        let served = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(served.path().join("toy/sub")).unwrap();
        std::fs::write(served.path().join("toy/a.csv"), b"h\n1\n").unwrap();
        std::fs::write(served.path().join("toy/sub/b.csv"), b"h\n\n").unwrap();
        let good = graph_core::registry::sha256_hex(b"h\n\n");

        let data = tempfile::tempdir().unwrap();
        let url = serve(served.path().to_path_buf(), 2);
        let reg = registry(&good);
        let spec = reg.get("TOY").unwrap();
        let out = install(spec, source(&url).as_ref(), data.path()).unwrap();
        assert_eq!(out, InstallOutcome::Installed);
        spec.verify(data.path()).unwrap();

        // Wrong checksum over HTTP: error, and nothing left in a fresh data dir.
        let data2 = tempfile::tempdir().unwrap();
        let url = serve(served.path().to_path_buf(), 2);
        let reg = registry(&"0".repeat(64));
        let e = install(reg.get("toy").unwrap(), source(&url).as_ref(), data2.path()).unwrap_err();
        assert!(
            e.to_string()
                .contains("checksum mismatch for toy/sub/b.csv"),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(data2.path()).unwrap().count(), 0);

        // 404: error naming the URL, nothing left behind.
        let data3 = tempfile::tempdir().unwrap();
        let url = serve(tempfile::tempdir().unwrap().path().to_path_buf(), 1);
        let e = install(reg.get("toy").unwrap(), source(&url).as_ref(), data3.path()).unwrap_err();
        assert!(e.to_string().contains("toy/a.csv"), "{e}");
        assert_eq!(std::fs::read_dir(data3.path()).unwrap().count(), 0);
    }
}
