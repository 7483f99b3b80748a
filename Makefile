# Make targets for people and CI. `make help` lists them.
GO       ?= go
# Targets run built commands, never go run: go run reports every non-zero
# exit as 1, and the codes say what happened (tlcrun: 12 a violation, 14 a
# manifest mismatch, 15 the engines disagree, 3 no TLC, 4 a spec the Go
# engine does not mirror; conformance: 10 and 11). The rule runs go build
# each time, which does nothing when nothing changed.
TLCRUN   := bin/tlcrun
FUZZTIME ?= 30s
NPM      ?= npm

.PHONY: help check test test-short lint deps verify verify-long fuzz build clean bench bench-docs bench-large bench-fpset
.PHONY: bin/tlcrun bin/seqctl bin/conformance bin/testsum bin/subjects bin/mutants
bin/tlcrun bin/seqctl bin/conformance:
	$(GO) build -o $@ ./cmd/$(notdir $@)
# The repository's own tools the targets run, built the same way: testsum
# exits with go test's status (2 for a build or flag error), which go run
# would turn into 1.
bin/testsum bin/subjects bin/mutants:
	$(GO) build -o $@ ./internal/tools/$(notdir $@)

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' \
	  '{ name[NR] = $$1; text[NR] = $$2; if (length($$1) > w) w = length($$1) } \
	   END { for (i = 1; i <= NR; i++) printf "  %-" w "s  %s\n", name[i], text[i] }'

check: bin/tlcrun ## check the contract at the reference bounds R0 with the Go engine (no Java)
	$(TLCRUN) check spec/R0.cfg

# go test -json through internal/tools/testsum: the output of go test, then
# the skipped tests grouped by reason (no TLC, no PostgreSQL, no browser);
# the exit status is go test's. -vet=off: lint, a prerequisite, has run
# go vet ./... with every analyzer, and go test's own vet (a subset, not
# cached as go vet's) cost a fresh clone about 35 s of CPU again.
test: deps lint bin/testsum ## the whole test suite (what .ci/run runs), then what was skipped and why
	bin/testsum -vet=off ./...

test-short: deps lint bin/testsum ## the suite without its long exhaustive runs (go test -short); CI runs make test
	bin/testsum -vet=off -short ./...

# staticcheck is pinned and installed from the Go module proxy into
# .tools/ (not a global that CI lacks); staticcheck.conf says which checks.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := .tools/staticcheck-$(STATICCHECK_VERSION)

# go mod tidy -diff: go.mod and go.sum say exactly what the code imports
# (a direct dependency not marked indirect, nothing stale). subjects: every
# commit since the rule keeps it (a subject of at most 72 characters, then a
# blank line); .githooks/commit-msg checks a message as it is written.
lint: $(STATICCHECK) bin/subjects ## gofmt, go vet, staticcheck (pinned, installed into .tools/), go mod tidy -diff, commit subjects
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	@bin/subjects

$(STATICCHECK):
	@mkdir -p .tools
	GOBIN=$(CURDIR)/.tools/gobin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv .tools/gobin/staticcheck $@

# The differential test compares the Go model with the spec as read by the
# npm package tla-checker; it is skipped (with a message) where npm is
# absent or the registry cannot be reached, unless
# RESUMECHECK_REQUIRE_TLA_CHECKER=1 (CI) makes that a failure.
deps: ## install the pinned npm package tla-checker for the differential test
	@if [ -d tla/tlachecker/js/node_modules/tla-checker ]; then :; \
	elif ! command -v $(NPM) >/dev/null 2>&1; then echo "npm not found: the tla-checker differential test will be skipped"; \
	elif $(NPM) ci --prefix tla/tlachecker/js --no-audit --no-fund --fetch-retries 1; then :; \
	elif [ "$$RESUMECHECK_REQUIRE_TLA_CHECKER" = 1 ]; then echo "npm ci failed, and RESUMECHECK_REQUIRE_TLA_CHECKER=1 requires tla-checker"; exit 1; \
	else echo "npm ci failed (offline, or no registry?): the tla-checker differential test will be skipped"; fi

verify: bin/tlcrun ## every quick model of spec/manifest.json against its recorded result
	$(TLCRUN) verify

verify-long: bin/tlcrun ## every model of the manifest, the scaled bounds R8 included
	$(TLCRUN) verify --tier all

# Every fuzzer of every package runs, whatever the earlier ones found; the
# failures are listed at the end (a failing input is written under the
# package's testdata/fuzz/, where go test then runs it as a regression
# case), and the target exits 1 if there was any. A package whose fuzzers
# cannot be listed (it does not build) counts as a failure, not as none.
# Each fuzzer's executions are listed too, and one that made no progress
# for most of its time is named: Go minimises every input that widens
# coverage for up to 60 s by default while the other workers wait, and
# FuzzJudge (kilobytes of recorded logs as seeds) and FuzzNormalise spent
# their whole minute so (16 and 2902 executions in 60 s); hence
# FUZZMINIMIZETIME (a crasher is minimised as long, and still reproduces).
FUZZMINIMIZETIME ?= 5s
fuzz: ## run every fuzzer of every package for FUZZTIME each (default 30s); list every failure and each fuzzer's executions at the end
	@failed=""; stalled=""; ran=0; runs=""; log=$$(mktemp); \
	for pkg in $$($(GO) list ./...); do \
	  list=$$($(GO) test -list '^Fuzz' $$pkg 2>&1) || { echo "$$list"; failed="$$failed $$pkg(does-not-build)"; continue; }; \
	  for f in $$(echo "$$list" | grep '^Fuzz'); do \
	    ran=$$((ran+1)); echo "== $$pkg $$f"; rm -f $$log.failed; \
	    { $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) || touch $$log.failed; } 2>&1 | tee $$log; \
	    [ -e $$log.failed ] && failed="$$failed $$pkg.$$f"; \
	    sum=$$(awk '/^fuzz: elapsed: / { v = $$0; sub(/^fuzz: elapsed: [^,]*, /, "", v); sub(/ [(,].*$$/, "", v); \
	        r++; if (r > 1 && v == p) { z++; if (z > m) m = z } else z = 0; p = v; if ($$4 == "execs:") n = $$5 + 0 } \
	      END { printf "%d:%d:%d", n, m, r }' $$log); \
	    runs="$$runs $$pkg.$$f:$$sum"; \
	  done; \
	done; \
	rm -f $$log $$log.failed; \
	echo; echo "fuzz: executions of each fuzzer, and how long it went without progress (reports every 3 s):"; \
	for r in $$runs; do \
	  set -- $$(echo "$$r" | tr : ' '); \
	  echo "  $$1  $$2 executions; at most $$3 of its $$4 progress reports in a row without progress"; \
	  [ $$(($$3 * 2)) -gt "$$4" ] && stalled="$$stalled $$1"; \
	done; \
	if [ -n "$$stalled" ]; then echo; echo "fuzz: these made no progress for most of their time (see their output above):"; for x in $$stalled; do echo "  $$x"; done; fi; \
	if [ -n "$$failed" ]; then \
	  echo; echo "fuzz: FAILED (of $$ran fuzzers):"; for x in $$failed; do echo "  $$x"; done; \
	  echo "the failing inputs are under each package's testdata/fuzz/ (git status shows them)"; exit 1; \
	fi; \
	echo; echo "fuzz: all $$ran fuzzers ran $(FUZZTIME) without a failure$${stalled:+, but the ones named above barely ran}"

build: ## build the commands into bin/
	$(GO) build -o bin/ ./cmd/...

clean: ## remove build outputs
	rm -rf bin

# The benchmark runs the Go engine and TLC as child processes of tlcrun, so
# each run's peak RSS is its own. TLC is found as every tlcrun command finds
# it (--jar, TLA2TOOLS_JAR, the default location of `tlcrun install`; see
# tlcrun doctor), and its rows are left out with a note where there is none:
#   TLA2TOOLS_JAR=/path/to/tla2tools.jar make bench
BENCH_FLAGS   ?=

bench: bin/tlcrun ## Go engine (1 and all workers) vs TLC on R0, R8 and R8-N11: one table
	bin/tlcrun bench $(BENCH_FLAGS)

bench-docs: bin/tlcrun ## the table docs/engine.md keeps: R0, R8, R8 safety only, R8 with symmetry vs TLC; R100M Go only; about an hour
	bin/tlcrun bench --cfg spec/R0.cfg,spec/R8.cfg,spec/bench/R8-safety.cfg,spec/bench/R8-sym.cfg,spec/bench/R100M.cfg --tlc-skip spec/bench/R100M.cfg $(BENCH_FLAGS)

bench-large: bin/tlcrun ## the Go engine on over 100 million states (spec/bench/R100M.cfg); minutes
	bin/tlcrun bench --cfg spec/bench/R100M.cfg --workers all --tlc off $(BENCH_FLAGS)

# The fingerprint set alone, 16-byte keys against the 64-bit set they
# replaced (engine/fpset64_test.go), interleaved: R8-sized and R100M-sized
# streams, one inserter and every core (docs/engine.md, "Lossless keys
# against 64-bit fingerprints"). FPSET_PAIRS interleaved pairs each.
FPSET_PAIRS ?= 5
bench-fpset: ## the fingerprint set vs the 64-bit one and the compact set, R8- and R100M-sized; the R100M-sized run needs about 4 GiB
	$(GO) test ./engine -run '^$$' -bench FPSetR8 -benchtime $(FPSET_PAIRS)x -timeout 2h
	$(GO) test ./engine -run '^$$' -bench FPSetR8 -benchtime $(FPSET_PAIRS)x -timeout 2h -fpset.states 119071840

# The reference sequencer's long tests and benchmark (issue 6). The
# PostgreSQL parts need a server: export RESUMECHECK_PG_DSN="$$(.ci/postgres.sh | tail -1)"
# (they skip without it, or fail with RESUMECHECK_REQUIRE_PG=1).
REPS ?= 5
.PHONY: race-matrix killsweep stopsweep bench-seq fault-table

race-matrix: ## sequencer: k racers in {2,3,4,8,16} x jitter {0,1,5,25} ms x {SQLite, PostgreSQL}, REPS repetitions; k recoverers in {2,4,8} and resume+recover pairs; and across network namespaces
	$(GO) test ./cmd/internal/seqcli -count=1 -timeout 60m -run 'TestRaceMatrix|TestRaceAcrossHosts' -v -args -full -reps $(REPS)

killsweep: ## sequencer: SIGKILL after every persistence operation, and after every operation of the recovery, on both stores; k concurrent recoveries after each kill; a paused process taken over
	$(GO) test ./cmd/internal/seqcli -count=1 -timeout 30m -run TestKillSweep -v -args -full

stopsweep: ## sequencer: SIGSTOP after every persistence operation and inside every write transaction, on both stores, while a recovery takes over
	$(GO) test ./cmd/internal/seqcli -count=1 -timeout 30m -run 'TestStopSweep' -v -args -full

# The fault table of docs/sequencer.md, from the runs: every run the
# named tests verify is counted (doubled, lost, rejected traces) and the
# table is written into the document's generated region only if every
# test passed and nothing was doubled or lost. Bounded by default (go
# test's cells); FAULT_ARGS='-full -reps 5' for the full sweep and matrix.
FAULT_RUN  ?= TestKillSweep|TestRaceMatrix|TestManyProcessesFewConnections|TestRaceAcrossHosts|TestLockHeldThenRecover|TestStopSweep|TestPartitionHoldsLock
FAULT_ARGS ?=
fault-table: ## sequencer: the kill sweep, the race matrix and the issue-28 fault tests, writing docs/sequencer.md's fault table from their runs
	$(GO) test ./cmd/internal/seqcli -count=1 -timeout 60m -run '$(FAULT_RUN)' -v -args -faulttable $(CURDIR)/docs/sequencer.md $(FAULT_ARGS)

bench-seq: bin/seqctl ## sequencer: durable commits/s and resume latency on SQLite and PostgreSQL, beside write+fsync on the same disk
	bin/seqctl bench

# The conformance harness (issue 8, docs/harness.md): real frameworks,
# pinned, measured against the contract. Each subject has its own
# environment under $(SUBJECTS) (gitignored), created by its install
# target; `make conformance` installs them all, runs every subject of
# adapters/subjects.json and diffs the profiles against the baselines in
# testdata/conformance through the regression gate (exit 10 on a
# confirmed change, 11 when the control does not conform). PostgreSQL
# cells need RESUMECHECK_PG_DSN (see above); without it they are n/a. CI
# bounds the run: CONFORMANCE_GRID=ci CONFORMANCE_REPS=1
# CONFORMANCE_SWEEP_STRIDE=3.
SUBJECTS          ?= .subjects
PYTHON            ?= python3
CONFORMANCE_FLAGS ?=
# The baselines run each crash cell this many times (a crash's outcome can
# vary from run to run); make conformance runs it once, and the gate
# confirms a lost violation only where the baseline's ten runs agreed.
CONFORMANCE_BASELINE_CRASH_RUNS ?= 10
.PHONY: conformance conformance-update conformance-install conformance-install-sequencer

# py_subject(name,version): a venv at $(SUBJECTS)/name-version from the
# pinned adapters/python/name/requirements-version.txt; reinstalled when
# that file changes. Other Python subjects reuse it with one $(eval).
define py_subject
.PHONY: conformance-install-$(1)-$(2)
conformance-install-$(1)-$(2): $(SUBJECTS)/$(1)-$(2)/.installed
$(SUBJECTS)/$(1)-$(2)/.installed: adapters/python/$(1)/requirements-$(2).txt
	rm -rf $(SUBJECTS)/$(1)-$(2)
	$(PYTHON) -m venv $(SUBJECTS)/$(1)-$(2)
	$(SUBJECTS)/$(1)-$(2)/bin/pip install --quiet --disable-pip-version-check -r $$<
	touch $$@
CONFORMANCE_INSTALL += conformance-install-$(1)-$(2)
endef

$(eval $(call py_subject,langgraph,1.2.9))
$(eval $(call py_subject,langgraph,1.2.24))
$(eval $(call py_subject,pydantic-graph,1.107.10))
$(eval $(call py_subject,crewai,1.15.2))
$(eval $(call py_subject,llama-index-workflows,2.22.2))
$(eval $(call py_subject,dbos,3.4.0))
$(eval $(call py_subject,remit-contract,0.1.2))

# npm_subject(name,version,dir): `npm ci` of the lock file in
# adapters/js/dir (node_modules there, gitignored); again when the lock
# file changes.
define npm_subject
.PHONY: conformance-install-$(1)-$(2)
conformance-install-$(1)-$(2): $(SUBJECTS)/$(1)-$(2)/.installed
$(SUBJECTS)/$(1)-$(2)/.installed: adapters/js/$(3)/package.json adapters/js/$(3)/package-lock.json
	$(NPM) ci --prefix adapters/js/$(3) --no-audit --no-fund
	mkdir -p $$(@D) && touch $$@
CONFORMANCE_INSTALL += conformance-install-$(1)-$(2)
endef

# go_subject(name,version,dir): the adapter's own module in adapters/go/dir
# (its go.mod pins the framework), built into $(SUBJECTS)/name-version.
define go_subject
.PHONY: conformance-install-$(1)-$(2)
conformance-install-$(1)-$(2):
	cd adapters/go/$(3) && $(GO) build -o $(abspath $(SUBJECTS))/$(1)-$(2)/adapter .
CONFORMANCE_INSTALL += conformance-install-$(1)-$(2)
endef

$(eval $(call npm_subject,langgraphjs,1.7.3,langgraphjs))
$(eval $(call go_subject,eino,0.9.13,eino))
$(eval $(call go_subject,go-workflows,1.4.2,goworkflows))
$(eval $(call go_subject,dbos-go,1.9.0,dbosgo))

# The control: this repository's sequencer behind its Go adapter.
conformance-install-sequencer: ## build the control subject's adapter (the reference sequencer)
	$(GO) build -o $(SUBJECTS)/sequencer/adapter ./adapters/go/sequencer
CONFORMANCE_INSTALL += conformance-install-sequencer

conformance-install: $(CONFORMANCE_INSTALL) ## create every subject's pinned environment under .subjects/

conformance: conformance-install bin/conformance ## run every subject through every scenario; diff the profiles against testdata/conformance
	bin/conformance run $(CONFORMANCE_FLAGS)

conformance-update: conformance-install bin/conformance ## the same, then rewrite the baselines and the tables in docs/conformance.md (review the diff)
	bin/conformance run --update --crash-runs $(CONFORMANCE_BASELINE_CRASH_RUNS) $(CONFORMANCE_FLAGS)

# TLC: tlcrun finds tla2tools.jar through --jar, TLA2TOOLS_JAR or the cache
# folder (tlcrun install), and java through JAVA_HOME or PATH; see
# docs/tlcrun.md. These targets say what is missing when TLC is not there.
.PHONY: doctor check-both verify-both sweep sweep-long
SWEEP_FLAGS ?= --set NTasks=3..5 --set MaxCrashes=1..2

doctor: bin/tlcrun ## say whether TLC can run here (Java 11+, tla2tools.jar), and how to fix what is missing
	$(TLCRUN) doctor

# Every cfg runs; a disagreement (15) is listed at the end, while TLC
# missing (3) or a spec the Go engine does not mirror (4) stops at once.
# The cfgs are the manifest's R0 and fault models, not a glob of spec/,
# where a cfg of a user's own is not one whose size anyone knows.
CHECK_BOTH_CFGS = $(shell sed -n 's/^ *"cfg": "\(R0[^"]*\|fault-[^"]*\)".*/spec\/\1/p' spec/manifest.json)
check-both: bin/tlcrun ## R0, its extensions and every fault model of the manifest with the Go engine and TLC, which must agree, state sets included (needs TLC)
	@failed=""; for cfg in $(CHECK_BOTH_CFGS); do \
	  out=$$($(TLCRUN) check --engine both --progress 0 $$cfg 2>&1); code=$$?; \
	  case $$code in \
	  0|11|12|13) echo "agree  $$cfg (exit $$code; $$(echo "$$out" | grep '^States:' | cut -c9-))";; \
	  15) echo "$$out"; echo "DISAGREE $$cfg (exit 15)"; failed="$$failed $$cfg";; \
	  *) echo "$$out"; exit $$code;; esac; \
	done; \
	if [ -n "$$failed" ]; then echo; echo "check-both: the engines disagree on$$failed"; exit 15; fi

verify-both: bin/tlcrun ## the quick models of the manifest with both engines (needs TLC)
	$(TLCRUN) verify --engine both

sweep: bin/tlcrun ## a small grid around R0 with both engines, which must agree in every cell (needs TLC; SWEEP_FLAGS)
	$(TLCRUN) sweep --engine both $(SWEEP_FLAGS)

sweep-long: bin/tlcrun ## the grid reaching R8 with both engines, as recorded in docs/tlcrun.md (needs TLC; an hour or more; figures only: R8's state sets are too large to hold)
	$(TLCRUN) sweep --engine both --compare-states=false --tlc-workers 2 --bounds spec/R8.cfg --set NTasks=6,8,10 --set MaxCrashes=2,4 --format markdown

# The HTML reports (package report; docs/contract.md shows them). The
# browser test drives Debian's chromium (apt-get install chromium) and skips
# without one, unless RESUMECHECK_REQUIRE_BROWSER=1 (CI sets it).
REPORT_DIR ?= bin/report
.PHONY: report report-browser report-shots

report: bin/tlcrun ## HTML pages in REPORT_DIR: the fault matrix, a check (and its DOT graph), a rejected trace, the conformance table
	bin/tlcrun report site --out $(REPORT_DIR)

report-browser: report ## make report's pages in headless Chromium at 390 and 1440 px: what a person sees (the whole path in view, no overflow, AA contrast)
	RESUMECHECK_REQUIRE_BROWSER=1 REPORT_DIR=$(abspath $(REPORT_DIR)) $(GO) test ./report -count=1 -run Browser -v

report-shots: ## rewrite docs/img/report-*.png from the browser test (quantized with pngquant when present); review them
	RESUMECHECK_REQUIRE_BROWSER=1 $(GO) test ./report -count=1 -run Browser -args -shots $(CURDIR)/docs/img
	@if command -v pngquant >/dev/null 2>&1; then \
	  for f in docs/img/report-*.png; do pngquant --quality=70-95 --speed 1 --force --output $$f $$f; done; \
	else echo "pngquant not found: the screenshots are not quantized (apt-get install pngquant)"; fi

matrix: bin/tlcrun ## the fault matrix at the reference bounds (every fault x every obligation, and the claims)
	$(TLCRUN) matrix

matrix-scaled: bin/tlcrun ## the fault matrix at the scaled bounds R8 into docs/matrix-R8.md (tens of minutes on 2 cores)
	$(TLCRUN) matrix --bounds spec/R8.cfg --format markdown > docs/matrix-R8.md.tmp && mv docs/matrix-R8.md.tmp docs/matrix-R8.md

matrix-both: bin/tlcrun ## the fault matrix with the Go engine and TLC, compared cell by cell (needs TLC; ~10-20 min)
	$(TLCRUN) matrix --engine both

# The interpreter on the models of tlaplus/Examples whose manifests record
# TLC's counts (internal/tools/examples): EXAMPLES is a checkout made
# elsewhere, never part of this repository. EXAMPLES_FLAGS adds TLC for
# its time (-jar tla2tools.jar -jars CommunityModules.jar -lib DIR), a
# -filter REGEXP, -timeout, -out. Exit 1 when a model is WRONG, 2 for a
# usage error (hence a built binary, not go run).
EXAMPLES       ?=
EXAMPLES_FLAGS ?=
.PHONY: examples examples-env bin/examples
examples-env:
	@if [ -z "$(EXAMPLES)" ]; then echo "make examples: set EXAMPLES to a tlaplus/Examples checkout, e.g. make examples EXAMPLES=../Examples"; exit 2; fi
bin/examples:
	$(GO) build -o $@ ./internal/tools/examples
examples: examples-env bin/tlcrun bin/examples ## the interpreter on the tlaplus/Examples suite against the manifests: make examples EXAMPLES=/path/to/Examples [EXAMPLES_FLAGS=...]
	bin/examples -examples $(EXAMPLES) -tlcrun $(TLCRUN) $(EXAMPLES_FLAGS)

# The mutation differential (internal/tools/mutants, docs/mutants.md):
# small syntactic changes to the specs of spec/R0.cfg, examples/twophase,
# examples/queue and, with EXAMPLES (a tlaplus/Examples checkout made
# elsewhere), a few of its models, each checked by the interpreter and by
# TLC, whose verdicts must agree. Needs TLC (TLA2TOOLS_JAR, or tlcrun
# install): without it the tool exits 3 and the target says it skipped.
# MUTANTS_FLAGS: -seed, -n (mutants per model), -timeout, -filter, and
# -out docs/mutants.md to rewrite the document's table. Exit 1 when a
# mutant is DIFFER.
MUTANTS_FLAGS ?=
.PHONY: mutants
mutants: bin/tlcrun bin/mutants ## the interpreter against TLC on mutants of the specs (needs TLC; [EXAMPLES=...] [MUTANTS_FLAGS=...]); a few minutes
	@bin/mutants -tlcrun $(TLCRUN) $(if $(EXAMPLES),-examples $(EXAMPLES)) $(MUTANTS_FLAGS); code=$$?; \
	  if [ $$code = 3 ]; then echo "make mutants: skipped: TLC cannot run here (set TLA2TOOLS_JAR to tla2tools.jar, or run tlcrun install)"; exit 0; fi; \
	  exit $$code
