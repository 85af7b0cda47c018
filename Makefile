# Makefile for the tuner extension (PGXS, shaped like pgvector's)

EXTENSION = tuner
EXTVERSION = 0.3.0
# The first released version: its script never changes (tests/upgrade.sh);
# later versions are reached through update scripts tuner--A--B.sql.
FIRST_VERSION = 0.1.0

MODULE_big = tuner
# The extension's scripts live outside sql/, which holds only the
# pg_regress tests; PGXS installs DATA and DATA_built by their base names.
# Released scripts, kept byte for byte as they shipped.
RELEASED_DIR = src/sql/released
DATA = $(RELEASED_DIR)/$(EXTENSION)--$(FIRST_VERSION).sql \
	$(RELEASED_DIR)/$(EXTENSION)--0.1.0--0.2.0.sql
# The current version's install script and the update to it, assembled
# from the per-feature sources in src/sql into build/ (generated, not in
# git): every object is written once, in one source file.
BUILD_DIR = build
DATA_built = $(BUILD_DIR)/$(EXTENSION)--$(EXTVERSION).sql \
	$(BUILD_DIR)/$(EXTENSION)--0.2.0--0.3.0.sql

CORE_OBJS = \
	src/core/tuner_status.o \
	src/core/rng.o \
	src/core/linalg.o \
	src/core/matern.o \
	src/core/gp.o \
	src/core/gp_fit.o \
	src/core/output_warp.o \
	src/core/icm.o \
	src/core/icm_fit.o \
	src/core/icm_likelihood_cholesky.o \
	src/core/icm_units.o \
	src/core/log_ei.o \
	src/core/gp_posterior.o \
	src/core/icm_posterior.o \
	src/core/acquisition.o \
	src/core/space.o \
	src/core/design.o \
	src/core/nlopt_guard.o \
	src/core/suggest.o \
	src/core/suggest_gp.o \
	src/core/feasibility.o \
	src/core/feasibility_calibration.o \
	src/core/suggest_icm.o \
	src/core/clusters.o \
	src/core/suggest_cluster.o \
	src/core/additive_posterior.o \
	src/core/suggest_additive.o \
	src/core/suggest_clustered.o \
	src/core/lasso.o \
	src/core/lasso_fast.o \
	src/core/relevance.o \
	src/core/svg.o \
	src/core/plot_scale.o \
	src/core/plot_frame.o \
	src/core/plot_convergence.o \
	src/core/plot_slice.o \
	src/core/plot_pareto.o \
	src/core/plot_importance.o \
	src/core/plot_heatmap.o \
	src/core/plot_progress.o \
	src/core/pareto.o \
	src/core/hypervolume.o \
	src/core/parego.o \
	src/core/mean_interval.o \
	src/core/pruning.o \
	src/core/suggest_policy.o \
	src/core/soft_bounds.o

PG_OBJS = \
	src/pg/tuner.o \
	src/pg/arrays.o \
	src/pg/gp_glue.o \
	src/pg/icm_glue.o \
	src/pg/suggest_glue.o \
	src/pg/feasibility_glue.o \
	src/pg/clusters_glue.o \
	src/pg/lasso_glue.o \
	src/pg/relevance_glue.o \
	src/pg/runner_exec.o \
	src/pg/runner_program.o \
	src/pg/worker.o \
	src/pg/slurm_exec.o \
	src/pg/plot_glue.o \
	src/pg/pareto_glue.o \
	src/pg/notify_guc.o \
	src/pg/limits.o \
	src/pg/host_cpus.o \
	src/pg/server_lifetime.o \
	src/pg/bookkeeping_write.o \
	src/pg/mean_interval_glue.o \
	src/pg/pruning_glue.o \
	src/pg/suggest_policy_glue.o \
	src/pg/soft_bounds_glue.o

# PostgreSQL-free code shared with tuner-agent (src/agent).
EXEC_OBJS = src/exec/runner_child.o src/exec/runner_deadline.o \
	src/exec/program_safety.o src/exec/measure_context.o \
	src/exec/progress_channel.o

OBJS = $(CORE_OBJS) $(PG_OBJS) $(EXEC_OBJS)
TUNER_HEADERS = $(wildcard src/core/*.h) $(wildcard src/pg/*.h) \
	$(wildcard src/exec/*.h)

# Every test in sql/, in name order: sql/ holds only pg_regress tests, and
# each test stands alone (it makes what it needs after CREATE EXTENSION and
# leaves nothing that changes another), so any order passes.
REGRESS = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION)

# override: a PG_CPPFLAGS given on the command line (CI warning flags)
# must not drop the include paths
override PG_CPPFLAGS += -Isrc/core -Isrc/pg -Isrc/exec
PG_CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare
SHLIB_LINK += -llapacke -lopenblas -lnlopt -lm

EXTRA_CLEAN = results regression.diffs regression.out $(BUILD_DIR)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# A script is its template with each "\ir FILE [PREFIX]" line replaced by
# src/sql/FILE or the one statement of it that starts with PREFIX
# (src/sql/assemble.pl).
$(BUILD_DIR)/$(EXTENSION)--%.sql: src/sql/$(EXTENSION)--%.sql.in src/sql/assemble.pl $(wildcard src/sql/*.sql)
	@mkdir -p $(BUILD_DIR)
	perl src/sql/assemble.pl src/sql $< > $@.tmp && mv $@.tmp $@

# The extension's scripts alone (tests/fuzz/run_sql_fuzz.sh builds them
# beside tuner.so).
.PHONY: scripts
scripts: $(DATA_built)

# Every object depends on the headers it may include.
$(OBJS): $(TUNER_HEADERS)

.PHONY: unittest tapcheck format format-check

unittest:
	$(MAKE) -C tests/unit run

# TAP tests of the background workers, runners, restarts and pg_cron
# (tests/t/*.pl).  Needs make install first; run as root or as a user
# that may run initdb (tests/tap.sh drops to postgres when root).
tapcheck:
	bash tests/tap.sh

CLANG_FORMAT ?= clang-format
# Every C file under src, as the CI's format suite checks them.
FORMAT_FILES = $(sort $(shell find src -name '*.c' -o -name '*.h'))

format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES)

# The standalone programs: the trial runners (src/runners/*) and
# tuner-agent (src/agent).  Each has a dependency list of its own
# (scripts/install-deps.sh rocksdb|fastquery|ceph|agent), so none is built
# by "make" or installed by "make install", which need only the
# extension's (scripts/install-deps.sh core); each is built and installed
# into $(pg_config --bindir) by its own targets:
#   make runner-rocksdb      make install-runner-rocksdb     (and so on)
#   make runners             make install-runners            (all runners)
#   make agent               make install-agent
#   make world               make install-world   (extension and programs)
# "make clean" cleans them all, without needing their libraries.
RUNNERS = rocksdb fastquery ceph
RUNNER_TARGETS = $(addprefix runner-,$(RUNNERS))
RUNNER_INSTALL = $(addprefix install-runner-,$(RUNNERS))
RUNNER_UNINSTALL = $(addprefix uninstall-runner-,$(RUNNERS))
RUNNER_CLEAN = $(addprefix clean-runner-,$(RUNNERS))
AGENT_DIR = src/agent

.PHONY: runners install-runners uninstall-runners agent install-agent \
	uninstall-agent clean-agent world install-world uninstall-world \
	$(RUNNER_TARGETS) $(RUNNER_INSTALL) $(RUNNER_UNINSTALL) $(RUNNER_CLEAN)

runners: $(RUNNER_TARGETS)
install-runners: $(RUNNER_INSTALL)
uninstall-runners: $(RUNNER_UNINSTALL)

$(RUNNER_TARGETS): runner-%:
	$(MAKE) -C src/runners/$* PG_CONFIG=$(PG_CONFIG)

$(RUNNER_INSTALL): install-runner-%: runner-%
	$(MAKE) -C src/runners/$* install PG_CONFIG=$(PG_CONFIG)

$(RUNNER_UNINSTALL): uninstall-runner-%:
	$(MAKE) -C src/runners/$* uninstall PG_CONFIG=$(PG_CONFIG)

$(RUNNER_CLEAN): clean-runner-%:
	$(MAKE) -C src/runners/$* clean

agent:
	$(MAKE) -C $(AGENT_DIR) PG_CONFIG=$(PG_CONFIG)

install-agent: agent
	$(MAKE) -C $(AGENT_DIR) install PG_CONFIG=$(PG_CONFIG)

uninstall-agent:
	$(MAKE) -C $(AGENT_DIR) uninstall PG_CONFIG=$(PG_CONFIG)

clean-agent:
	$(MAKE) -C $(AGENT_DIR) clean

clean: $(RUNNER_CLEAN) clean-agent

world: all runners agent
install-world: install install-runners install-agent
uninstall-world: uninstall uninstall-runners uninstall-agent
