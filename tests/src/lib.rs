//! Test helpers: spawn the real `scanid` binary (`serve` on port 0 with a fresh data dir, or
//! an operator command), and a minimal HTTP/1.1 client so the tests depend on nothing else.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::Duration;

/// The `scanid` binary: `$SCANID_BIN`, or `target/<profile>/scanid` next to this test.
pub fn scanid_bin() -> PathBuf {
    if let Ok(p) = std::env::var("SCANID_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let bin = profile_dir.join("scanid");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p scanid-cli` first (tests/run does)",
        bin.display()
    );
    bin
}

/// Runs `scanid ARGS` to completion.
pub fn scanid(args: &[&str]) -> Output {
    Command::new(scanid_bin())
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// Runs `scanid ARGS`, asserts success, and parses its JSON stdout.
pub fn scanid_json(args: &[&str]) -> serde_json::Value {
    let out = scanid(args);
    assert!(
        out.status.success(),
        "scanid {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A running `scanid serve`.
pub struct TestServer {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub issuer: String,
    pub data_dir: PathBuf,
    /// The JSON line the server printed on start.
    pub banner: serde_json::Value,
}

impl TestServer {
    /// Starts `scanid serve --addr 127.0.0.1:0 --data-dir DATA_DIR EXTRA...`.
    pub fn start(data_dir: &Path, extra: &[&str]) -> Self {
        let mut child = Command::new(scanid_bin())
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let banner: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("serve printed {line:?} ({e})"));
        Self {
            base: format!("http://{}", banner["addr"].as_str().unwrap()),
            issuer: banner["issuer"].as_str().unwrap().to_owned(),
            data_dir: data_dir.to_owned(),
            child: Some(child),
            banner,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// SIGTERM, then wait for the exit (graceful shutdown).
    pub fn stop(mut self) -> ExitStatus {
        let mut child = self.child.take().unwrap();
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        for _ in 0..100 {
            if let Some(s) = child.try_wait().unwrap() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.kill().unwrap();
        panic!("scanid serve did not stop within 5 s of SIGTERM");
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// An HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request with `Connection: close` and reads the whole response.
pub fn request(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> Resp {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("no header end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}

pub fn get(url: &str) -> Resp {
    request("GET", url, &[], b"")
}

/// `python3` for the independent-library checks (`$SCANID_TEST_PYTHON` overrides).
pub fn python() -> String {
    std::env::var("SCANID_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}
