//! One typical app link (the login page's QR code: version 6 or 7) encoded and written as SVG,
//! as the login page and its poll do for each code. `cargo bench -p scanid-qr`.

use criterion::{criterion_group, criterion_main, Criterion};

/// An app link as `scanid serve` puts it in a login page's code.
const APP_LINK: &str = "https://id.example.com/realms/scanid/app/scan?session=-q3OJ9o0EgXKX2arp_iu0w&challenge=N-vxNW4vCqMYdMqlXAjMIg";

fn encode(c: &mut Criterion) {
    c.bench_function("svg of an app link", |b| {
        b.iter(|| scanid_qr::svg(std::hint::black_box(APP_LINK)))
    });
}

criterion_group!(benches, encode);
criterion_main!(benches);
