# Makefile for the tuner extension (PGXS, shaped like pgvector's)

EXTENSION = tuner
EXTVERSION = 0.1.0

MODULE_big = tuner
DATA = sql/$(EXTENSION)--$(EXTVERSION).sql $(wildcard sql/$(EXTENSION)--*--*.sql)

CORE_OBJS = \
	src/core/tuner_status.o \
	src/core/rng.o \
	src/core/linalg.o \
	src/core/matern.o \
	src/core/gp.o \
	src/core/gp_fit.o \
	src/core/log_ei.o \
	src/core/acquisition.o \
	src/core/space.o \
	src/core/design.o \
	src/core/suggest.o

PG_OBJS = \
	src/pg/tuner.o \
	src/pg/arrays.o \
	src/pg/gp_glue.o \
	src/pg/suggest_glue.o

OBJS = $(CORE_OBJS) $(PG_OBJS)
TUNER_HEADERS = $(wildcard src/core/*.h) $(wildcard src/pg/*.h)

# Listed explicitly: sql/ also holds the install script.
REGRESS = study parameter suggest report gp branin
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CPPFLAGS += -Isrc/core -Isrc/pg
PG_CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare
SHLIB_LINK += -llapacke -lopenblas -lnlopt -lm

EXTRA_CLEAN = results regression.diffs regression.out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every object depends on the headers it may include.
$(OBJS): $(TUNER_HEADERS)

.PHONY: unittest format format-check

unittest:
	$(MAKE) -C tests/unit run

CLANG_FORMAT ?= clang-format
FORMAT_FILES = $(wildcard src/core/*.c src/core/*.h src/pg/*.c src/pg/*.h)

format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES)
