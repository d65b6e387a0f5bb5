/* SHIMBLAS_TIMELINE: for each device's share of a host-data sgemm, when each tile of C was issued
 * by the host and finished by the device, and when the share's bands were taken, ended and joined,
 * in one block of lines on stderr per share (ms from the call's start). For finding where a
 * spread call loses time; off, it costs one branch per tile. */
#ifndef SHIM_SHARE_TIMELINE_H
#define SHIM_SHARE_TIMELINE_H

#include <cuda_runtime_api.h>

#include "gpu_pipeline.h"

#define SHIM_TIMELINE_TILES 512

typedef struct shim_timeline {
    int on;
    int device, share;
    double t0;          /* host ms of the call's start */
    double gpu_base;    /* host ms when `start` was recorded on an idle compute stream */
    cudaEvent_t start;
    int tiles;
    int tile_row[SHIM_TIMELINE_TILES], tile_col[SHIM_TIMELINE_TILES];
    double tile_issued[SHIM_TIMELINE_TILES];
    cudaEvent_t tile_done[SHIM_TIMELINE_TILES];
    double issue_end, end, joined;
    shim_host_times host; /* the share's host thread (its pipeline adds it up) */
    shim_pipeline *pl;    /* that pipeline, told to stop at the end */
} shim_timeline;

/* (and has pl add up its host thread's time in tl->host) */
void shim_timeline_begin(shim_timeline *tl, double t0, int device, int share, shim_pipeline *pl);
/* tile (i, j)'s last kernel is enqueued on stream */
void shim_timeline_tile(shim_timeline *tl, int i, int j, cudaStream_t stream);
/* the share has enqueued everything / its streams are finished / every share is */
void shim_timeline_mark(shim_timeline *tl, double *what);
/* prints the share's lines and releases its events */
void shim_timeline_end(shim_timeline *tl);

#endif
