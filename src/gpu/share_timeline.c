#include "share_timeline.h"

#include <stdio.h>

#include "config.h"
#include "stats.h"

void shim_timeline_begin(shim_timeline *tl, double t0, int device, int share, shim_pipeline *pl)
{
    tl->on = shim_config_get()->timeline;
    if (!tl->on)
        return;
    cudaStream_t stream = shim_pipeline_compute_stream(pl);
    tl->device = device;
    tl->share = share;
    tl->t0 = t0;
    tl->tiles = 0;
    tl->issue_end = tl->end = tl->joined = 0;
    if (cudaEventCreate(&tl->start) != cudaSuccess) {
        tl->on = 0;
        return;
    }
    tl->host = (shim_host_times){0};
    tl->pl = pl;
    shim_pipeline_time_host(pl, &tl->host);
    cudaStreamSynchronize(stream);
    cudaEventRecord(tl->start, stream);
    tl->gpu_base = shim_now_ms() - t0;
}

void shim_timeline_tile(shim_timeline *tl, int i, int j, cudaStream_t stream)
{
    if (!tl->on || tl->tiles >= SHIM_TIMELINE_TILES)
        return;
    int n = tl->tiles;
    if (cudaEventCreate(&tl->tile_done[n]) != cudaSuccess)
        return;
    cudaEventRecord(tl->tile_done[n], stream);
    tl->tile_row[n] = i;
    tl->tile_col[n] = j;
    tl->tile_issued[n] = shim_now_ms() - tl->t0;
    tl->tiles = n + 1;
}

void shim_timeline_mark(shim_timeline *tl, double *what)
{
    if (tl->on)
        *what = shim_now_ms() - tl->t0;
}

/* host ms (from the call's start) when event e completed on the device, which it releases */
static double device_ms(const shim_timeline *tl, cudaEvent_t e)
{
    float ms = -1;
    if (cudaEventElapsedTime(&ms, tl->start, e) != cudaSuccess)
        ms = -1;
    cudaEventDestroy(e);
    return tl->gpu_base + ms;
}

/* where a line of eight entries starts, or the space between two */
static const char *entry_sep(int n)
{
    return n % 8 ? " " : "\nshimblas: timeline  ";
}

void shim_timeline_end(shim_timeline *tl)
{
    if (!tl->on)
        return;
    /* one write for the whole block, so that shares on other threads do not interleave inside it;
     * every line is the library's ("shimblas: ") and eight tiles long at most */
    char buf[SHIM_TIMELINE_TILES * 48 + SHIM_TIMED_UPLOADS * 24 + 512];
    int len = snprintf(buf, sizeof buf,
                       "shimblas: timeline device %d share %d: %d tiles, issued by %.1f ms, streams done %.1f ms, "
                       "all shares %.1f ms; tile (row,col) issued/done ms:",
                       tl->device, tl->share, tl->tiles, tl->issue_end, tl->end, tl->joined);
    for (int n = 0; n < tl->tiles; n++) {
        double done = device_ms(tl, tl->tile_done[n]);
        if (len < (int)sizeof buf - 64)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s(%d,%d) %.1f/%.1f", entry_sep(n), tl->tile_row[n],
                            tl->tile_col[n], tl->tile_issued[n], done);
    }
    shim_host_times *h = &tl->host;
    if (len < (int)sizeof buf - 400)
        len += snprintf(buf + len, sizeof buf - (size_t)len,
                        "\nshimblas: timeline  host thread: packed %.0f MB in %.1f ms (%.1f GB/s), unpacked %.0f MB in "
                        "%.1f ms (%.1f GB/s), waited %.1f ms for pinned buffers' copies and %.1f ms for blocks "
                        "another device was staging; first uploads, packed from-to/on the device ms:",
                        h->pack_mb, h->pack_ms, h->pack_ms > 0 ? h->pack_mb / h->pack_ms : 0, h->unpack_mb,
                        h->unpack_ms, h->unpack_ms > 0 ? h->unpack_mb / h->unpack_ms : 0, h->wait_ms,
                        h->exchange_wait_ms);
    for (int n = 0; n < h->uploads; n++) {
        double landed = device_ms(tl, h->landed[n]);
        if (len < (int)sizeof buf - 64)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%.1f-%.1f/%.1f", entry_sep(n),
                            h->packed_from[n] - tl->t0, h->packed_to[n] - tl->t0, landed);
    }
    h->uploads = 0;
    shim_pipeline_time_host(tl->pl, NULL); /* (tl may not outlive the call) */
    cudaEventDestroy(tl->start);
    fprintf(stderr, "%s\n", buf);
    tl->on = 0;
}
