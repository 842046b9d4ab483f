# `sam build` runs `make build-<LogicalId>` once per function (BuildMethod: makefile, in the
# source tree: see samconfig.toml). The first call builds every function in one cargo
# invocation (infra/build-functions.sh); the others find them built (cargo does nothing) and
# only copy their bootstrap. The binary of a function is its BuildProperties.Binary in
# template.yaml.
build-%:
	infra/build-functions.sh >&2
	infra/sam-artifact.py $* "$(ARTIFACTS_DIR)"

.PHONY: functions sizes
functions:
	infra/build-functions.sh
sizes:
	infra/sizes.py
