//! Single-row writes through the group-commit writer, to a store in a temporary dir
//! (`cargo bench -p scanid-sqlite`): one at a time (each its own group and commit), and 100
//! at once (what the writer's groups are for: a burst of requests each writing a row).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use scanid_core::clock::Timestamp;
use scanid_core::store::{Backend, Cond, Key, Kind, Record};
use scanid_sqlite::EmbeddedStore;

/// A row about the size of a code exchange's (a grant's record: a few hundred bytes).
fn record(i: usize) -> Option<Record> {
    let body = serde_json::json!({ "sub": "alice", "client": "shop", "scope": "openid profile", "n": i, "pad": "x".repeat(200) });
    Record::new(
        Key::new(Kind::Test, format!("w{i:08}")),
        &body,
        Some(4_000_000_000),
    )
    .ok()
}

fn writes(c: &mut Criterion) {
    let (Ok(dir), Ok(rt)) = (
        tempfile::tempdir(),
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build(),
    ) else {
        return;
    };
    let Ok(store) = EmbeddedStore::open(dir.path()) else {
        return;
    };
    let now = Timestamp::from_secs(1_800_000_000);
    let mut g = c.benchmark_group("sqlite writer");
    let mut next = 0usize;
    g.throughput(Throughput::Elements(1));
    g.bench_function("one put at a time", |b| {
        b.iter_batched(
            || {
                next += 1;
                record(next)
            },
            |r| {
                rt.block_on(async {
                    if let Some(r) = r {
                        let _ = store.put(r, Cond::Any, now).await;
                    }
                })
            },
            BatchSize::SmallInput,
        )
    });
    const BURST: usize = 100;
    g.throughput(Throughput::Elements(BURST as u64));
    g.bench_function("100 puts at once", |b| {
        b.iter_batched(
            || {
                next += BURST;
                (next - BURST..next).filter_map(record).collect::<Vec<_>>()
            },
            |rs| {
                rt.block_on(async {
                    let mut tasks = tokio::task::JoinSet::new();
                    for r in rs {
                        let s = store.clone();
                        tasks.spawn(async move { s.put(r, Cond::Any, now).await });
                    }
                    while tasks.join_next().await.is_some() {}
                })
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, writes);
criterion_main!(benches);
