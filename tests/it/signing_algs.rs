//! PS256 and EdDSA signing keys with the operator's CLI on AWS, emulated (moto): in
//! `kms-envelope` mode `scanid keys rotate --alg EdDSA|PS256` adds keys that sign a client's
//! tokens after a QR login, which PyJWT verifies from the JWKS alone; in `kms` mode a PS256
//! key is a new `RSA_2048` KMS key, and EdDSA is refused with the reason (the emulator has no
//! Ed25519, so scanid does not offer it there).

use scanid_tests::{
    auth_url, code_of, create_shop, get, jwt_header, login, pyjwt_verify, redeem, scanid,
    secret_of, Browser, TestApp, TestServer, CB, DISCOVERY,
};

use crate::aws::Aws;

#[test]
fn kms_envelope_signs_eddsa_and_ps256_and_kms_refuses_eddsa() {
    let aws = Aws::init("kms-envelope");
    for alg in ["PS256", "EdDSA"] {
        assert_eq!(
            aws.cli(&["keys", "rotate", "--alg", alg])["step"],
            "published"
        );
        assert_eq!(
            aws.cli(&["keys", "rotate", "--alg", alg, "--force"])["step"],
            "activated"
        );
    }
    let secrets: Vec<String> = [("ed", "EdDSA"), ("ps", "PS256")]
        .iter()
        .map(|(id, alg)| {
            secret_of(&aws.cli(&[
                "client",
                "create",
                "--name",
                id,
                "--client-id",
                id,
                "--redirect-uri",
                CB,
                "--token-alg",
                alg,
            ]))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &aws.flags());
    let app = TestApp::enroll(&s, "edwards");
    for ((id, alg), secret) in [("ed", "EdDSA"), ("ps", "PS256")].iter().zip(&secrets) {
        let url = auth_url(
            &s,
            &[
                ("client_id", *id),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "s"),
                ("scope", "openid"),
            ],
        );
        let code = code_of(&login(&mut Browser::new(), &s, &app, &url));
        let t = redeem(&s, (id, secret), &code);
        for name in ["id_token", "access_token"] {
            let token = t[name].as_str().unwrap();
            assert_eq!(jwt_header(token)["alg"], *alg, "{name}");
            let out = pyjwt_verify(&s.oidc("certs"), &s.issuer, token);
            assert!(
                out.status.success(),
                "PyJWT, {alg} {name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    let kms = Aws::init("kms");
    assert_eq!(
        kms.cli(&["keys", "rotate", "--alg", "PS256"])["step"],
        "published"
    );
    let listed = kms.cli(&["keys", "list"]);
    assert!(
        listed["keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["alg"] == "PS256"
                && k["state"] == "next"
                && k["held_by"]["kms"].is_string()),
        "{listed}"
    );
    let mut args = vec!["keys", "rotate", "--alg", "EdDSA"];
    args.extend(kms.flags());
    let out = scanid(&args);
    assert!(!out.status.success(), "EdDSA in kms mode was accepted");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kms-envelope"), "{err}");
}

/// `--signing-alg EdDSA` on a new data dir: the key file is made with an EdDSA key beside RS256
/// and ES256, discovery lists it, and a client without an algorithm of its own gets EdDSA
/// tokens, which PyJWT verifies.
#[test]
fn a_new_key_file_has_a_key_for_the_default_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let secret = create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &["--signing-alg", "EdDSA"]);
    let d = get(&s.url(DISCOVERY)).json();
    assert_eq!(
        d["id_token_signing_alg_values_supported"],
        serde_json::json!(["ES256", "EdDSA", "RS256"])
    );
    let app = TestApp::enroll(&s, "default");
    let url = auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("scope", "openid"),
        ],
    );
    let code = code_of(&login(&mut Browser::new(), &s, &app, &url));
    let t = redeem(&s, ("shop", &secret), &code);
    let id = t["id_token"].as_str().unwrap();
    assert_eq!(jwt_header(id)["alg"], "EdDSA");
    let out = pyjwt_verify(&s.oidc("certs"), &s.issuer, id);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
