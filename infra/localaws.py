"""What the infra scripts share: the AWS emulator (moto), the scanid CLI, a fresh table."""
import json
import os
import pathlib
import re
import subprocess
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
CB = "https://rp.example.com/cb"


def environment():
    """This process's environment, pointed at the emulator (started if AWS_ENDPOINT_URL is
    unset) with dummy credentials, and SCANID_BIN set (default target/debug/scanid)."""
    env = dict(os.environ)
    env.setdefault("SCANID_BIN", str(ROOT / "target/debug/scanid"))
    if not env.get("AWS_ENDPOINT_URL"):
        out = subprocess.run([str(ROOT / "infra/emulator.sh"), "start"], capture_output=True,
                             text=True, check=True, env=env)
        m = re.search(r"^export AWS_ENDPOINT_URL=(\S+)$", out.stdout, re.M)
        if not m:
            raise RuntimeError(f"infra/emulator.sh start printed no endpoint:\n{out.stdout}")
        env["AWS_ENDPOINT_URL"] = m.group(1)
    env.update(AWS_REGION="us-east-1", AWS_ACCESS_KEY_ID="testing",
               AWS_SECRET_ACCESS_KEY="testing", SCANID_REALM="scanid")
    env.pop("AWS_PROFILE", None)
    return env


def cli(env, *args):
    """Runs the scanid command; its JSON output."""
    out = subprocess.run([env["SCANID_BIN"], *args], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"scanid {' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)


def fresh_table(env, signing, prefix):
    """A new table with a key set for `signing` (kms or kms-envelope), a photo bucket, and a
    confidential client `shop` (redirect CB, client credentials, resource server); the
    environment that selects them and the client's secret."""
    table = f"{prefix}-{uuid.uuid4().hex[:12]}"
    init = cli(env, "aws", "init", "--table", table, "--signing", signing, "--create-kms-key",
               "--photo-bucket", f"{table}-photos")
    env = dict(env, SCANID_TABLE=table, SCANID_SIGNING=signing,
               SCANID_KMS_KEY_ID=init["kms_key_id"], SCANID_PHOTO_BUCKET=f"{table}-photos")
    client = cli(env, "client", "create", "--name", "Shop", "--client-id", "shop",
                 "--redirect-uri", CB, "--client-credentials", "--resource-server")
    return env, client["client_secret"]
