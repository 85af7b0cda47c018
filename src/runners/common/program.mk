# program.mk: the Makefile shared by tuner's standalone programs, the
# trial runners under src/runners and tuner-agent (src/agent).  None of
# them is part of the extension's shared library: the top-level Makefile
# builds them only when asked (make runners, make agent, make world), so
# that the extension builds with its own dependencies alone.
#
# A program's Makefile sets, then includes this file before any rule:
#   PROGRAM          the program built from OBJS with $(CC)
#   OBJS             its objects; sources in its directory, in
#                    src/runners/common (the runners' shared helpers) or
#                    in another directory the Makefile adds with vpath
#   HEADERS          headers every object depends on
#   LDLIBS           its libraries
#   PROGRAM_CFLAGS   extra compiler flags (optional, e.g. -pthread)
#   INSTALL_PROGRAMS what make install installs (default: PROGRAM)
#   EXTRA_PROGRAMS   other programs make builds, with rules of their own
#   EXTRA_CLEAN      other files make clean removes
# and may add to CPPFLAGS and LDFLAGS.
#
#   make             build the programs
#   make install     install INSTALL_PROGRAMS into $(pg_config --bindir)
#   make uninstall   remove them from there
#   make clean       remove what make built (needs none of the libraries)

PG_CONFIG ?= pg_config
# Recursive: only install and uninstall run pg_config.
BINDIR ?= $(shell $(PG_CONFIG) --bindir)

# The runners' shared helpers (die, signals, stdin, JSON output), compiled
# into each program that lists their objects.
COMMON_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
vpath %.c $(COMMON_DIR)
CPPFLAGS += -I$(COMMON_DIR)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-sign-compare -Wmissing-prototypes -Werror=vla $(PROGRAM_CFLAGS)

INSTALL_PROGRAMS ?= $(PROGRAM)

all: $(PROGRAM) $(EXTRA_PROGRAMS)

$(PROGRAM): $(OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)

$(OBJS): $(HEADERS)

install: $(INSTALL_PROGRAMS)
	install -d '$(DESTDIR)$(BINDIR)'
	install -m 755 $(INSTALL_PROGRAMS) '$(DESTDIR)$(BINDIR)/'

uninstall:
	rm -f $(addprefix '$(DESTDIR)$(BINDIR)'/,$(INSTALL_PROGRAMS))

clean:
	rm -f $(PROGRAM) $(EXTRA_PROGRAMS) $(OBJS) $(EXTRA_CLEAN)

.PHONY: all install uninstall clean
