//! Behind the template's CloudFront edge (`EdgeProtection=cloudfront-waf` in `template.yaml`):
//! WAF's rate rules count each client address there, and API Gateway sees only CloudFront's
//! addresses. The edge adds a secret header to every request it forwards; with
//! `SCANID_EDGE_SECRET` set, a request without it (sent straight to the API, around the WAF)
//! is refused, and a request with it is attributed to the client address CloudFront saw
//! (`CloudFront-Viewer-Address`), so scanid's own per-address limits count clients, not edges.
//! Without the setting (locally, or an API without the edge) requests pass unchanged.

use aws_lc_rs::constant_time::verify_slices_are_equal;
use lambda_http::request::RequestContext;
use lambda_http::RequestExt;

use crate::{HttpError, Request};
use scanid_core::config::Settings;

/// The header the edge adds (its value is `SCANID_EDGE_SECRET`).
pub(crate) const SECRET_HEADER: &str = "x-scanid-edge";
/// The client's `address:port` as CloudFront received it.
pub(crate) const VIEWER_ADDRESS: &str = "cloudfront-viewer-address";

/// The request to serve, its source address taken from the edge; or why it is refused (403).
pub(crate) fn admit(settings: &Settings, mut req: Request) -> Result<Request, HttpError> {
    let Some(secret) = &settings.edge_secret else {
        return Ok(req);
    };
    let presented = req
        .headers()
        .get(SECRET_HEADER)
        .map(http::HeaderValue::as_bytes)
        .unwrap_or_default();
    if verify_slices_are_equal(presented, secret.expose().as_bytes()).is_err() {
        tracing::warn!("refused: a request that did not come through the edge");
        return Err(forbidden());
    }
    let viewer = req
        .headers()
        .get(VIEWER_ADDRESS)
        .and_then(|v| v.to_str().ok())
        .and_then(viewer_ip);
    let Some(ip) = viewer else {
        tracing::warn!("refused: the edge sent no CloudFront-Viewer-Address");
        return Err(forbidden());
    };
    req.headers_mut().remove(SECRET_HEADER);
    let ctx = match req.request_context() {
        RequestContext::ApiGatewayV2(mut c) => {
            c.http.source_ip = Some(ip.to_string());
            RequestContext::ApiGatewayV2(c)
        }
        other => other,
    };
    Ok(req.with_request_context(ctx))
}

/// The address of `CloudFront-Viewer-Address` (`198.51.100.10:46532`, or an IPv6 address
/// followed by `:port`, without brackets).
fn viewer_ip(value: &str) -> Option<std::net::IpAddr> {
    let (ip, port) = value.trim().rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    ip.trim_matches(|c| c == '[' || c == ']').parse().ok()
}

fn forbidden() -> HttpError {
    HttpError::Json {
        status: 403,
        error: "forbidden",
        description: "requests reach this service through its edge only".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scanid_core::config::RawSettings;

    fn settings(secret: Option<&str>) -> Settings {
        Settings::from_raw(&RawSettings {
            public_url: Some("https://id.example.com".into()),
            edge_secret: secret.map(str::to_owned),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{e}"))
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef-edge";

    fn request(headers: &[(&str, &str)]) -> Request {
        let mut b = http::Request::builder().uri("https://id.example.com/realms/scanid");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let req: Request = b.body(lambda_http::Body::Empty).unwrap_or_default();
        let mut ctx =
            lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext::default();
        ctx.http.source_ip = Some("130.176.1.1".into()); // a CloudFront address
        req.with_request_context(RequestContext::ApiGatewayV2(ctx))
    }

    fn status(r: Result<Request, HttpError>) -> u16 {
        match r {
            Ok(_) => 200,
            Err(e) => e.into_response().status().as_u16(),
        }
    }

    #[test]
    fn without_the_setting_requests_pass_unchanged() {
        let r = admit(&settings(None), request(&[(VIEWER_ADDRESS, "6.6.6.6:1")]));
        let r = r.unwrap_or_else(|_| panic!("refused"));
        assert_eq!(crate::source_ip(&r), "130.176.1.1");
    }

    #[test]
    fn with_the_setting_only_the_edge_is_served_and_its_viewer_is_the_source() {
        let s = settings(Some(SECRET));
        // Around the edge: no header, a wrong one, a prefix of the right one.
        assert_eq!(status(admit(&s, request(&[]))), 403);
        assert_eq!(
            status(admit(
                &s,
                request(&[(SECRET_HEADER, "guess"), (VIEWER_ADDRESS, "1.2.3.4:5")])
            )),
            403
        );
        assert_eq!(
            status(admit(
                &s,
                request(&[
                    (SECRET_HEADER, &SECRET[..31]),
                    (VIEWER_ADDRESS, "1.2.3.4:5")
                ])
            )),
            403
        );
        // Through the edge, but without a viewer address.
        assert_eq!(status(admit(&s, request(&[(SECRET_HEADER, SECRET)]))), 403);
        for (viewer, ip) in [
            ("198.51.100.10:46532", "198.51.100.10"),
            ("2001:db8::1:443", "2001:db8::1"),
            ("[2001:db8::2]:443", "2001:db8::2"),
        ] {
            let r = admit(
                &s,
                request(&[(SECRET_HEADER, SECRET), (VIEWER_ADDRESS, viewer)]),
            )
            .unwrap_or_else(|_| panic!("{viewer} refused"));
            assert_eq!(crate::source_ip(&r), ip);
            assert!(r.headers().get(SECRET_HEADER).is_none(), "not passed on");
        }
        assert_eq!(
            status(admit(
                &s,
                request(&[(SECRET_HEADER, SECRET), (VIEWER_ADDRESS, "nonsense")])
            )),
            403
        );
    }

    #[test]
    fn the_secret_is_long_and_never_printed() {
        assert!(Settings::from_raw(&RawSettings {
            public_url: Some("https://id.example.com".into()),
            edge_secret: Some("short".into()),
            ..Default::default()
        })
        .is_err());
        assert!(!format!("{:?}", settings(Some(SECRET))).contains(SECRET));
    }
}
