#!/usr/bin/env python3
"""Prints the size of every Lambda function as deployed: the stripped arm64 `bootstrap` and the
zip SAM uploads, against the bars of docs (<= 3 MB zipped for a function whose IAM policy in
template.yaml allows only DynamoDB reads, <= 5 MB for every other). Exits 1 if a bar is missed.

usage: infra/sizes.py [--build] [--markdown]
  --build     run infra/build-functions.sh first (arm64)
  --markdown  print a Markdown table (for the README)

MB here is 10^6 bytes.
"""
import argparse
import io
import os
import pathlib
import subprocess
import sys
import zipfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
READS = {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"}
SMALL, LARGE = 3_000_000, 5_000_000


def built(binary):
    """Where cargo lambda puts a function's bootstrap (honours CARGO_TARGET_DIR)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    return target / "lambda" / binary / "bootstrap"


class Template(yaml.SafeLoader):
    """Reads CloudFormation's short-form tags (!Ref, !Sub, ...) as plain values."""


def _any_tag(loader, _suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


Template.add_multi_constructor("!", _any_tag)


def actions(function):
    """Every IAM action the function's inline policies allow."""
    out = set()
    for policy in function.get("Properties", {}).get("Policies", []) or []:
        if not isinstance(policy, dict):
            out.add(str(policy))  # a managed or SAM policy template: count it as more than reads
            continue
        for statement in policy.get("Statement", []):
            action = statement.get("Action", [])
            out.update([action] if isinstance(action, str) else action)
    return out


def template():
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=Template)


def functions():
    for resource in template()["Resources"].values():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        binary = resource["Metadata"]["BuildProperties"]["Binary"]
        yield binary, actions(resource)


def zipped(path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:  # zlib's default, as SAM
        info = zipfile.ZipInfo("bootstrap")
        info.external_attr = 0o755 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, path.read_bytes())
    return len(buf.getvalue())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    if args.build:
        subprocess.run([str(ROOT / "infra/build-functions.sh")], check=True)
    rows, failed = [], False
    for name, allowed in sorted(functions()):
        path = built(name)
        if not path.exists():
            print(f"{path} is missing: run infra/build-functions.sh (or --build)", file=sys.stderr)
            return 1
        bar = SMALL if allowed <= READS else LARGE
        size, packed = path.stat().st_size, zipped(path)
        ok = packed <= bar
        failed |= not ok
        rows.append((name, "DynamoDB reads" if bar == SMALL else "writes, KMS or S3", size, packed, bar, ok))
    rows.sort(key=lambda r: r[3])
    if args.markdown:
        print("| function | AWS access | bootstrap (MB) | zipped (MB) | bar (MB) | |")
        print("|---|---|--:|--:|--:|---|")
        for n, kind, size, packed, bar, ok in rows:
            print(f"| {n} | {kind} | {size / 1e6:.2f} | {packed / 1e6:.2f} | {bar / 1e6:.0f} | "
                  f"{'ok' if ok else 'OVER'} |")
    else:
        print(f"{'function':<26}{'access':<14}{'bootstrap':>12}{'zipped':>12}{'bar':>10}")
        for n, kind, size, packed, bar, ok in rows:
            print(f"{n:<26}{kind:<14}{size:>12,}{packed:>12,}{bar:>10,}  {'ok' if ok else 'OVER'}")
        total = sum(r[3] for r in rows)
        print(f"{len(rows)} functions, {total / 1e6:.1f} MB zipped in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
