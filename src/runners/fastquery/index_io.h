/*
 * index_io.h: the HDF5 side shared by build and query: opening files
 * through MPI-IO with the requested hints, slab reads and writes (empty
 * slabs still take part in collective calls), and the index file layout.
 *
 * Index file (all datasets 1-D, written in parallel):
 *   root attributes  n, block, nbins, word_bits (= 32), format ("WAH32")
 *   /<var>/edges     float64[nbins + 1]   bin edges (bins.h)
 *   /<var>/offsets   uint64[nblocks * nbins + 1]  word offset of the bitmap
 *                    of (block b, bin k) at b * nbins + k; the last entry
 *                    is the total number of words
 *   /<var>/words     uint32[total]        the WAH bitmaps (wah.h), block-major
 * Block b covers particles [b * block, min((b + 1) * block, n)); its
 * bitmaps have one bit per particle of the block.
 */
#ifndef FQ_INDEX_IO_H
#define FQ_INDEX_IO_H

#include "fq.h"

#include <hdf5.h>

/* Open (or create) path with the MPI-IO driver and the hints; *used gets
 * the info the opened MPI file reports (MPI_File_get_info). */
hid_t fq_open(const char *path, const FqOptions *o, int create,
			  MPI_Info *used);

/* Transfer property list: collective or independent. */
hid_t fq_dxpl(int collective);

/* Read / write count elements at start of a 1-D dataset (count may be 0). */
void fq_read_slab(hid_t dset, hid_t dxpl, hid_t type, uint64_t start,
				  uint64_t count, void *buf);
void fq_write_slab(hid_t dset, hid_t dxpl, hid_t type, uint64_t start,
				   uint64_t count, const void *buf);

/* Read the listed elements (coords ascending) of a 1-D dataset. */
void fq_read_points(hid_t dset, hid_t dxpl, hid_t type, const hsize_t *coords,
					uint64_t count, void *buf);

/* Create a 1-D dataset of the given length (no modification times). */
hid_t fq_create_dataset(hid_t loc, const char *name, hid_t type,
						uint64_t length);

/* Scalar attributes. */
void fq_write_attr_u64(hid_t loc, const char *name, uint64_t v);
uint64_t fq_read_attr_u64(hid_t loc, const char *name);

/* HDF5's name of an H5D_mpio_actual_io_mode_t. */
const char *fq_io_mode_name(int mode);

#endif
