/*
 * main.c: tuner_fastquery SUBCOMMAND [--key value ...]
 *   gen    write (or find in the cache) the synthetic particle data set
 *   build  build the WAH bitmap index of a data file
 *   query  answer range queries from the index (or by a full scan)
 * Run under mpiexec.mpich -n RANKS.  One JSON object on stdout (rank 0);
 * exit 0 success, 1 failed run, 2 invalid input.
 */
#include "fq.h"

#include <hdf5.h>
#include <stdio.h>
#include <string.h>

/* Dispatch to the subcommand; every rank parses the same options. */
int
main(int argc, char **argv)
{
	FqOptions o;
	int rc;

	MPI_Init(&argc, &argv);
	if (argc < 2)
		fq_fail(2, "usage: tuner_fastquery gen|build|query [--key value ...]");
	/* errors are reported by the caller with context; keep stderr clean */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	fq_parse_options(argc - 2, argv + 2, &o);
	if (strcmp(argv[1], "gen") == 0)
		rc = fq_gen(&o);
	else if (strcmp(argv[1], "build") == 0)
		rc = fq_build(&o);
	else if (strcmp(argv[1], "query") == 0)
		rc = fq_query(&o);
	else
		fq_fail(2, "unknown subcommand \"%s\" (gen, build or query)", argv[1]);
	MPI_Finalize();
	return rc;
}
