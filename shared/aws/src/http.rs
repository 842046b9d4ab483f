//! The HTTP client every AWS SDK call goes through: HTTP/1.1 on hyper's pooled client, TLS by
//! rustls with aws-lc-rs (the crypto scanid signs with) and the system's roots.
//!
//! The SDK's own client (`default-https-client`) negotiates HTTP/2 as well, so it links `h2`
//! and a connection pool of its own: about 500 KB of every function's code, for services
//! (DynamoDB, KMS, S3, SQS) that scanid reaches over HTTP/1.1. This one reuses the hyper
//! client the Lambda runtime already links (docs/book/src/performance.md, "Function sizes").
//!
//! Errors are classified as the SDK's client classifies them, so its retry strategy treats a
//! refused connection, a reset or a closed connection as transient (retried) and a timeout as
//! a timeout.

use std::error::Error as StdError;
use std::sync::Arc;
use std::time::Duration;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::retry::ErrorKind;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector as TcpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// How long a connection (TCP and TLS) may take to open.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long an idle pooled connection is kept (AWS endpoints close theirs after about a minute).
const IDLE_TIMEOUT: Duration = Duration::from_secs(50);

type Pool = Client<HttpsConnector<TcpConnector>, SdkBody>;

/// The SDK's HTTP client for scanid (see the module's documentation). Cloning shares the pool.
#[derive(Clone, Debug)]
pub struct AwsHttp {
    pool: Pool,
}

impl AwsHttp {
    /// A client trusting the system's certificate roots. A root that does not parse is skipped
    /// and logged; with none at all, HTTPS calls fail (and say so in the log) while plain HTTP
    /// (a local emulator) still works.
    pub fn new() -> Self {
        let loaded = rustls_native_certs::load_native_certs();
        for e in &loaded.errors {
            tracing::warn!(error = %e, "a system certificate root could not be read");
        }
        let mut roots = rustls::RootCertStore::empty();
        let (added, skipped) = roots.add_parsable_certificates(loaded.certs);
        if skipped > 0 || added == 0 {
            tracing::warn!(added, skipped, "system certificate roots for AWS calls");
        }
        Self::with_roots(roots)
    }

    /// A client trusting `roots` only (tests use their own authority).
    pub fn with_roots(roots: rustls::RootCertStore) -> Self {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map(|b| b.with_root_certificates(roots).with_no_client_auth());
        let tls = match tls {
            Ok(tls) => tls,
            // aws-lc-rs supports the default versions; should a build ever not, every call
            // fails as a TLS error rather than the process refusing to start.
            Err(e) => {
                tracing::error!(error = %e, "no TLS configuration for AWS calls");
                rustls::ClientConfig::builder()
                    .with_root_certificates(rustls::RootCertStore::empty())
                    .with_no_client_auth()
            }
        };
        let mut tcp = TcpConnector::new();
        tcp.enforce_http(false);
        tcp.set_connect_timeout(Some(CONNECT_TIMEOUT));
        tcp.set_nodelay(true);
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        let pool = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(IDLE_TIMEOUT)
            .build(https);
        Self { pool }
    }

    /// The client as the SDK's configuration takes it.
    pub fn shared(self) -> SharedHttpClient {
        SharedHttpClient::new(self)
    }
}

impl Default for AwsHttp {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpClient for AwsHttp {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(Connector {
            pool: self.pool.clone(),
            read_timeout: settings.read_timeout(),
        })
    }
}

/// One use of the pool, with the read timeout of the call's settings.
#[derive(Debug)]
struct Connector {
    pool: Pool,
    read_timeout: Option<Duration>,
}

impl HttpConnector for Connector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let request = match request.try_into_http1x() {
            Ok(request) => request,
            Err(e) => return HttpConnectorFuture::ready(Err(ConnectorError::user(e.into()))),
        };
        let sent = self.pool.request(request);
        let read_timeout = self.read_timeout;
        HttpConnectorFuture::new(async move {
            let answer = match read_timeout {
                Some(limit) => match tokio::time::timeout(limit, sent).await {
                    Ok(answer) => answer,
                    Err(elapsed) => return Err(ConnectorError::timeout(elapsed.into())),
                },
                None => sent.await,
            };
            match answer {
                Ok(response) => HttpResponse::try_from(response.map(SdkBody::from_body_1_x))
                    .map_err(|e| ConnectorError::other(e.into(), None)),
                Err(e) => Err(classify(e)),
            }
        })
    }
}

/// The SDK's classification of a hyper failure (see `aws-smithy-http-client`): what is
/// transient is retried by the standard retry strategy.
fn classify(e: hyper_util::client::legacy::Error) -> ConnectorError {
    let kind = kind(&e);
    let e: Box<dyn StdError + Send + Sync> = e.into();
    match kind {
        Kind::Timeout => ConnectorError::timeout(e),
        Kind::User => ConnectorError::user(e),
        Kind::Io => ConnectorError::io(e),
        Kind::Transient => ConnectorError::other(e, Some(ErrorKind::TransientError)),
        Kind::Other => ConnectorError::other(e, None),
    }
}

#[derive(Debug, PartialEq)]
enum Kind {
    Timeout,
    User,
    Io,
    Transient,
    Other,
}

fn kind(e: &hyper_util::client::legacy::Error) -> Kind {
    if e.is_connect() {
        return Kind::Io;
    }
    if let Some(h) = find::<hyper::Error>(e) {
        if h.is_timeout() {
            return Kind::Timeout;
        }
        if h.is_user() {
            return Kind::User;
        }
        if h.is_closed() || h.is_canceled() || find::<std::io::Error>(h).is_some() {
            return Kind::Io;
        }
        // S3 sometimes ends a response early.
        if h.is_incomplete_message() {
            return Kind::Transient;
        }
    }
    if find::<std::io::Error>(e).is_some() {
        return Kind::Io;
    }
    Kind::Other
}

/// The first error of type `E` in `e`'s chain.
fn find<'a, E: StdError + 'static>(e: &'a (dyn StdError + 'static)) -> Option<&'a E> {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(found) = e.downcast_ref::<E>() {
            return Some(found);
        }
        next = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use aws_smithy_runtime_api::client::http::HttpConnectorSettings;
    use aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder;
    use http_body_util::BodyExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn connector(read_timeout: Option<Duration>) -> SharedHttpConnector {
        let mut settings = HttpConnectorSettings::builder();
        if let Some(t) = read_timeout {
            settings = settings.read_timeout(t);
        }
        let components = RuntimeComponentsBuilder::for_tests()
            .build()
            .expect("test components");
        AwsHttp::new().http_connector(&settings.build(), &components)
    }

    fn request(url: &str, body: &'static str) -> HttpRequest {
        let request = http::Request::builder()
            .method("POST")
            .uri(url)
            .header("x-amz-target", "DynamoDB_20120810.GetItem")
            .body(SdkBody::from(body))
            .expect("request");
        HttpRequest::try_from(request).expect("smithy request")
    }

    /// A server on loopback that answers each connection with `answer` (or nothing, for
    /// `None`) after reading a request, and hands back what it read.
    async fn server(answer: Option<&'static str>) -> (String, tokio::sync::mpsc::Receiver<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buf = vec![0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let _ = tx.send(String::from_utf8_lossy(&buf[..n]).into()).await;
                match answer {
                    Some(a) => {
                        let _ = socket.write_all(a.as_bytes()).await;
                    }
                    None => tokio::time::sleep(Duration::from_secs(5)).await,
                }
            }
        });
        (url, rx)
    }

    #[tokio::test]
    async fn sends_the_request_and_reads_the_answer() {
        let (url, mut seen) = server(Some(
            "HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: 7\r\n\r\n{\"a\":1}",
        ))
        .await;
        let response = connector(None)
            .call(request(&url, "{\"TableName\":\"t\"}"))
            .await
            .expect("answer");
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(
            response.headers().get("content-type"),
            Some("application/x-amz-json-1.0")
        );
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        assert_eq!(&body[..], b"{\"a\":1}");
        let sent = seen.recv().await.expect("request seen");
        assert!(sent.starts_with("POST / HTTP/1.1\r\n"), "{sent}");
        assert!(
            sent.contains("x-amz-target: DynamoDB_20120810.GetItem"),
            "{sent}"
        );
        assert!(sent.ends_with("{\"TableName\":\"t\"}"), "{sent}");
    }

    #[tokio::test]
    async fn a_refused_connection_is_transient_io() {
        // Bind and drop, so the port is (almost certainly) closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("port")
            .port();
        let e = connector(None)
            .call(request(&format!("http://127.0.0.1:{port}/"), "{}"))
            .await
            .expect_err("refused");
        assert!(e.is_io(), "{e:?}");
    }

    #[tokio::test]
    async fn a_server_that_never_answers_is_a_timeout() {
        let (url, _seen) = server(None).await;
        let e = connector(Some(Duration::from_millis(200)))
            .call(request(&url, "{}"))
            .await
            .expect_err("timeout");
        assert!(e.is_timeout(), "{e:?}");
    }

    #[tokio::test]
    async fn a_connection_closed_before_the_answer_is_io() {
        let (url, _seen) = server(Some("")).await;
        let e = connector(None)
            .call(request(&url, "{}"))
            .await
            .expect_err("closed");
        assert!(
            e.is_io() || e.as_other() == Some(ErrorKind::TransientError),
            "{e:?}"
        );
    }

    /// A CA and a certificate for 127.0.0.1 signed by it (DER), made with the openssl command.
    fn authority(dir: &std::path::Path) -> Option<(Vec<u8>, Vec<u8>, Vec<u8>)> {
        let run = |args: &[&str]| {
            std::process::Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let ok = run(&[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "1",
            "-subj",
            "/CN=test CA",
        ]) && run(&[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "srv.key",
            "-out",
            "srv.csr",
            "-subj",
            "/CN=127.0.0.1",
        ]) && std::fs::write(dir.join("ext"), "subjectAltName=IP:127.0.0.1\n").is_ok()
            && run(&[
                "x509",
                "-req",
                "-in",
                "srv.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "srv.pem",
                "-days",
                "1",
                "-extfile",
                "ext",
            ])
            && run(&["x509", "-in", "ca.pem", "-outform", "DER", "-out", "ca.der"])
            && run(&[
                "x509", "-in", "srv.pem", "-outform", "DER", "-out", "srv.der",
            ])
            && run(&[
                "pkcs8",
                "-topk8",
                "-nocrypt",
                "-in",
                "srv.key",
                "-outform",
                "DER",
                "-out",
                "srv.key.der",
            ]);
        let read = |f: &str| std::fs::read(dir.join(f)).ok();
        ok.then(|| Some((read("ca.der")?, read("srv.der")?, read("srv.key.der")?)))
            .flatten()
    }

    #[tokio::test]
    async fn speaks_https_to_a_server_its_roots_trust() {
        let dir = tempfile::tempdir().expect("dir");
        let (ca, cert, key) = authority(dir.path()).expect("openssl made the test's CA");
        let server = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.into()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.into()),
            )
            .expect("server TLS");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(server));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    continue;
                };
                let mut buf = vec![0u8; 4096];
                let _ = tls.read(&mut buf).await;
                let _ = tls
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                    .await;
                let _ = tls.shutdown().await;
            }
        });
        let url = format!("https://127.0.0.1:{port}/");
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.into()).expect("root");
        let components = RuntimeComponentsBuilder::for_tests()
            .build()
            .expect("components");
        let trusting = AwsHttp::with_roots(roots)
            .http_connector(&HttpConnectorSettings::builder().build(), &components);
        let response = trusting
            .call(request(&url, "{}"))
            .await
            .expect("https answer");
        assert_eq!(response.status().as_u16(), 200);
        // The system's roots do not know the test's CA: refused, as a connection failure.
        let e = connector(None)
            .call(request(&url, "{}"))
            .await
            .expect_err("untrusted");
        assert!(e.is_io(), "{e:?}");
    }

    #[tokio::test]
    async fn https_to_a_server_with_an_unknown_authority_fails_as_io() {
        // A plain-text server on the other end: the TLS handshake fails, which is what a
        // missing root or a wrong certificate looks like to the retry strategy (connect).
        let (url, _seen) = server(Some("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")).await;
        let e = connector(None)
            .call(request(&url.replace("http://", "https://"), "{}"))
            .await
            .expect_err("not TLS");
        assert!(e.is_io(), "{e:?}");
    }
}
