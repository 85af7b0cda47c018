#!/bin/bash
# bench/multitask/alternate_schedule.sh [seeds [cap [schedule]]]: run
# alternate_schedule.c (see its header) through core_program.sh.
exec bash "$(dirname "$0")/core_program.sh" alternate_schedule "$@"
