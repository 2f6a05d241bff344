/* decode.c — one decode step through leanattn's C ABI (leanattn.h) on the CPU, and the plan as JSON.
 * 1 request, 4 query heads over 2 KV heads, head_dim 64, a paged fp32 cache of 16-token blocks. */
#include <leanattn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADS = 4, KV_HEADS = 2, D = 64, BLOCK = 16, BLOCKS = 8 };

int main(void) {
    static float q[HEADS * D], out[HEADS * D], k[BLOCKS * BLOCK * KV_HEADS * D], v[BLOCKS * BLOCK * KV_HEADS * D];
    for (int i = 0; i < HEADS * D; ++i) q[i] = sinf(0.3f * (float)i);
    for (int i = 0; i < BLOCKS * BLOCK * KV_HEADS * D; ++i) k[i] = cosf(0.07f * (float)i), v[i] = sinf(0.02f * (float)i);
    const int32_t table[BLOCKS] = {5, 2, 7, 0, 1, 3, 6, 4}; /* request 0's blocks, in token order */
    const int32_t seqlens[1] = {100};
    const int64_t ctx[1] = {BLOCKS * BLOCK};

    /* Fields by name (those left out are 0: the documented defaults, here the LeanTile and the tile rows). */
    leanattn_problem problem = {.batch = 1, .q_heads = HEADS, .kv_heads = KV_HEADS, .head_dim = D, .q_len = 1, .ctx = ctx};
    leanattn_plan_options options;
    memset(&options, 0, sizeof options);
    leanattn_plan* plan = NULL;
    if (leanattn_plan_create(&problem, LEANATTN_FP32, LEANATTN_DEVICE_CPU, &options, &plan) != LEANATTN_OK) {
        fprintf(stderr, "plan: %s\n", leanattn_last_error());
        return 1;
    }
    size_t bytes = 0;
    leanattn_plan_workspace_bytes(plan, &bytes);
    void* workspace = aligned_alloc(64, (bytes + 63) / 64 * 64);

    leanattn_tensors t;
    memset(&t, 0, sizeof t);
    t.q = (leanattn_head_tensor){.data = q, .stride_batch = HEADS * D, .stride_token = HEADS * D, .stride_head = D};
    t.out = (leanattn_head_tensor){.data = out, .stride_batch = HEADS * D, .stride_token = HEADS * D, .stride_head = D};
    t.kv = (leanattn_kv_cache){.k = k,
                               .v = v,
                               .layout = LEANATTN_KV_PAGED,
                               .stride_request = BLOCK * KV_HEADS * D, /* paged: between blocks */
                               .stride_token = KV_HEADS * D,
                               .stride_head = D,
                               .capacity = BLOCKS * BLOCK,
                               .block_table = table,
                               .block_table_stride = BLOCKS,
                               .block_size = BLOCK,
                               .num_blocks = BLOCKS};
    t.seqlens = seqlens;
    int status = leanattn_run(plan, &t, workspace, bytes, NULL, 0);
    if (status != LEANATTN_OK) fprintf(stderr, "run: %s\n", leanattn_last_error());

    char* json = NULL;
    if (status == LEANATTN_OK && leanattn_plan_json(plan, &json) == LEANATTN_OK) {
        printf("leanattn %s: out[0][0:3] = %.5f %.5f %.5f; plan JSON of %zu bytes\n", leanattn_version(), out[0], out[1], out[2], strlen(json));
        leanattn_free(json);
    }
    /* A bad call fails cleanly: a length beyond the cache. */
    const int32_t too_long[1] = {BLOCKS * BLOCK + 1};
    t.seqlens = too_long;
    if (leanattn_run(plan, &t, workspace, bytes, NULL, 0) != LEANATTN_ERROR_INVALID_ARGUMENT) status = 1;
    else printf("refused as expected: %s\n", leanattn_last_error());
    free(workspace);
    leanattn_plan_destroy(plan);
    for (int i = 0; i < HEADS * D; ++i) {
        if (!isfinite(out[i])) status = 1;
    }
    return status == LEANATTN_OK ? 0 : 1;
}
