#!/usr/bin/env python3
"""Copies the bootstrap of one template.yaml function (by logical id) into the directory SAM
packs: `infra/sam-artifact.py JwksFunction "$ARTIFACTS_DIR"` (the Makefile's build rule)."""
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sizes import built, template  # noqa: E402


def main(logical_id, artifacts):
    resource = template()["Resources"].get(logical_id)
    if resource is None or resource.get("Type") != "AWS::Serverless::Function":
        print(f"{logical_id} is not a function in template.yaml", file=sys.stderr)
        return 1
    binary = resource["Metadata"]["BuildProperties"]["Binary"]
    out = pathlib.Path(artifacts)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy2(built(binary), out / "bootstrap")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
