#!/bin/bash
# bench/multitask/likelihood_eval.sh [n [reps]]: run likelihood_eval.c (see
# its header) through core_program.sh.
exec bash "$(dirname "$0")/core_program.sh" likelihood_eval "$@"
