/* leanattn.h — the C ABI of leanattn: LeanAttention's stream-K decode attention, for FFI users and the
 * Python package.
 *
 * Make a plan once from a problem's shape (the context lengths each request's cache can hold), query its
 * workspace size, then run it at every decode step on tensors the caller owns:
 *
 *     leanattn_plan* plan;
 *     if (leanattn_plan_create(&problem, LEANATTN_FP16, LEANATTN_DEVICE_CUDA, &options, &plan) != LEANATTN_OK)
 *         fprintf(stderr, "%s\n", leanattn_last_error());
 *     size_t bytes; leanattn_plan_workspace_bytes(plan, &bytes);        // allocate once (cudaMalloc)
 *     leanattn_run(plan, &tensors, workspace, bytes, stream, 0);         // every step; graph-capturable
 *     leanattn_run_host_lengths(plan, &tensors, host_lengths, NULL, ...);     // or, lengths known on the host: faster
 *     leanattn_stage_step(plan, &tensors, host_lengths, NULL, ...);           // or both: staged before a graph's replay,
 *     leanattn_run_staged(plan, &tensors, workspace, bytes, stream, 0);      //   this captured in the graph
 *     leanattn_plan_destroy(plan);
 *
 * Handles are opaque; every function returns a status and, on failure, sets a message for this thread
 * (leanattn_last_error). No function writes anything when it fails (leanattn_plan_create sets *plan to NULL);
 * a destroyed plan is gone: a later call given it fails naming the plan, and destroying it again does nothing (unless
 * a plan made since took its address, which no check can tell). A plan may serve several threads at once (each run
 * with a workspace of its own), but leanattn_plan_destroy must not overlap any other call given that plan: as with
 * free(), the caller orders the destroy after every call that uses it has returned (a call under way when it is
 * destroyed reads freed memory). Zeroed structs and
 * NULL options mean the documented defaults; leanattn_plan_create copies what it reads (ctx, the option strings).
 * Strides count elements; the head dimension must be contiguous. Shapes:
 *   q, out       (batch, q_len, q_heads, head_dim)
 *   softmax_lse  (batch, q_heads, q_len) float32, optional
 *   k, v         strided: request b's token t of kv-head h at b·stride_request + t·stride_token + h·stride_head
 *                (the padded (B, Hkv, N, d) cache and the token-major (B, N, Hkv, d) one);
 *                paged: (num_blocks, block_size, kv_heads, head_dim) with a (batch, max_blocks) int32 table;
 *                ragged: request b's tokens at rows cu_seqlens[b] … of one tensor
 *   seqlens      (batch) int32: each request's tokens, its q_len new ones included, at most what its part of the
 *                cache holds (the plan's ctx is the capacity it was made for: any lengths up to it run)
 * q, k, v and out are of the plan's dtype (nothing can check that through a pointer); softmax_lse is float32, the
 * natural log of each row's softmax denominator over its scaled scores. For a paged cache stride_request is the
 * stride between blocks and capacity is max_blocks * block_size; a ragged cache ignores both.
 * Memory: out may be q itself (same pointer and strides: in place); otherwise a run refuses out or softmax_lse that
 * overlap themselves, each other, q, k, v, seqlens, block_table or cu_seqlens, and a workspace overlapping any of
 * them (a ragged cache's k and v only where cu_seqlens is in host memory: its extent is read there).
 * CPU plans take host memory (and check every length and block id: a negative length, 1 to q_len - 1 or beyond the
 * cache is refused; 0, an empty slot, is taken, its rows out 0 and lse -inf, as on the GPU by every kind of step)
 * and a workspace aligned to 16 bytes. CUDA plans take device memory of the GPU
 * options.cuda_device names (current for the call alone: the thread's current CUDA context, none included, is as the
 * caller left it when the call returns) and run on `stream`, a stream of that GPU, without allocating
 * or synchronising; they take fp16 or bf16, head_dim 64, 96, 128 or 256 and q_len 1 to 8,
 * every pointer and stride of q, out, k and v (and the workspace) 16-byte aligned. No CUDA call checks a length: each
 * clamps it to the cache (host-lengths and staged steps the host's copy), a row that then sees no token getting out 0
 * and lse -inf (a ragged part that is reversed or starts before row 0 holding no token); a ragged cache's cu_seqlens
 * are otherwise the caller's to keep valid (within k and v, and for a plan whose grid exceeds what the GPU holds at
 * once, no part longer than the plan's lengths), as no call can check them against k's rows.
 *
 * Versions: LEANATTN_VERSION_* below are this header's; leanattn_version() is the library's ("0.1.0"). Until 1.0 a
 * minor version may change these structs, so the shared library's soname carries it (libleanattn.so.0.1) and
 * find_package(leanattn 0.1) takes 0.1.x only. */
#ifndef LEANATTN_H
#define LEANATTN_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define LEANATTN_API __declspec(dllexport)
#else
#define LEANATTN_API __attribute__((visibility("default")))
#endif

#define LEANATTN_VERSION_MAJOR 0
#define LEANATTN_VERSION_MINOR 1
#define LEANATTN_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

typedef enum leanattn_status {
    LEANATTN_OK = 0,
    LEANATTN_ERROR_INVALID_ARGUMENT = 1, /* bad input: a shape, a stride, a length, an option */
    LEANATTN_ERROR_RUNTIME = 2,          /* the machine failed: a CUDA error, an unreadable data file */
    LEANATTN_ERROR_OUT_OF_MEMORY = 3,
    LEANATTN_ERROR_INTERNAL = 4          /* a bug in leanattn: please report it with the message */
} leanattn_status;

typedef enum leanattn_dtype { LEANATTN_FP32 = 0, LEANATTN_FP16 = 1, LEANATTN_BF16 = 2 } leanattn_dtype;
typedef enum leanattn_device_kind { LEANATTN_DEVICE_CPU = 0, LEANATTN_DEVICE_CUDA = 1 } leanattn_device_kind;
typedef enum leanattn_kv_layout { LEANATTN_KV_STRIDED = 0, LEANATTN_KV_PAGED = 1, LEANATTN_KV_RAGGED = 2 } leanattn_kv_layout;

typedef struct leanattn_problem {
    int64_t batch, q_heads, kv_heads, head_dim;
    int64_t q_len;      /* new tokens per request decoded at once; 0: 1 */
    int64_t tile;       /* LeanTile in tokens; 0: 256 for head_dim <= 64, else 128 */
    const int64_t* ctx; /* (batch) context lengths; for a plan, the tokens each request's cache can hold */
    int64_t tile_rows;  /* query rows (query heads x new tokens of one KV head) one output tile holds at most; a KV
                           head with more is cut into row blocks that each read its K and V. 0: 16 (one tensor-core
                           tile), or with strategy "auto" the rows auto predicts fastest (8 for 9-16 rows, 32-128 for
                           more); the CUDA kernels hold up to 128 (64 at head_dim 256) */
} leanattn_problem;

typedef struct leanattn_plan_options {
    const char* strategy; /* "stream-k" (NULL), "fixed-split", "no-split", or "auto" (the plan the device's kernel
                             model predicts fastest: docs/calibration.md; it chooses splits, grid and snap
                             itself and refuses them non-zero); leanattn_simulate_json also takes "all" */
    int64_t splits;       /* fixed-split: splits per output (at most the longest output's LeanTiles); 0:
                             FlashAttention-2's heuristic */
    int64_t grid;         /* stream-k: CTAs (more than the LeanTiles are cut to the LeanTiles: one each); 0: the aligned rule's cost model picks among
                             the resident CTA slots, k CTAs on every output and halves of the slots (under
                             stream_k_rule "paper": every resident slot) */
    const char* device;   /* a device name of `leanattn devices` or a .json file: the planner's cost parameters
                             (and, on the CPU and in reports, the SMs planned for); NULL: for CUDA plans the
                             file whose "cuda_names" name this GPU (else h100-sxm's), h100-sxm's for reports and
                             "auto", the built-in H100 figures for other CPU plans. A CUDA
                             plan always takes its SM count and CTAs per SM from the GPU itself; a CPU plan
                             with "auto" the file's SMs at its kernel model's CTAs per SM (weighed there). */
    int cuda_device;      /* CUDA plans: the GPU's ordinal, whose SMs the plan fills and where it runs */
    const char* stream_k_rule; /* stream-k: "aligned" (NULL: CTA boundaries snapped to outputs where that is
                                  predicted cheaper) or "paper" (the published plan); with another strategy
                                  than "stream-k" or "auto", refused (as a non-zero snap is) */
    int64_t snap;         /* stream-k, aligned: force this snap distance in LeanTiles (experiments); 0: the
                             cost model's choice (snap 0 itself is the paper's plan: ask for "paper") */
    const char* lengths;  /* "auto": the kind of step the plan will mostly run, whose kernel model weighs the plans:
                             "device" (NULL: leanattn_run, the lengths read on the GPU) or "host"
                             (leanattn_run_host_lengths, which costs less per step). Either call runs any plan;
                             any other value is refused, whatever the strategy. */
} leanattn_plan_options;


typedef struct leanattn_head_tensor {
    void* data;
    int64_t stride_batch, stride_token, stride_head;
} leanattn_head_tensor;

typedef struct leanattn_lse_tensor {
    float* data; /* NULL: no LSE */
    int64_t stride_batch, stride_head, stride_token;
} leanattn_lse_tensor;

typedef struct leanattn_kv_cache {
    const void* k;
    const void* v;
    leanattn_kv_layout layout;
    int64_t stride_request, stride_token, stride_head;
    int64_t capacity;            /* strided: tokens per request; paged: max_blocks * block_size */
    const int32_t* block_table;  /* paged */
    int64_t block_table_stride;  /* paged: elements between requests' rows */
    int64_t block_size;          /* paged */
    int64_t num_blocks;          /* paged */
    const int32_t* cu_seqlens;   /* ragged: (batch + 1) */
} leanattn_kv_cache;

typedef struct leanattn_tensors {
    leanattn_head_tensor q;
    leanattn_head_tensor out;
    leanattn_lse_tensor lse;
    leanattn_kv_cache kv;
    const int32_t* seqlens;
    float softmax_scale; /* 0: 1/sqrt(head_dim) */
} leanattn_tensors;

typedef struct leanattn_plan leanattn_plan;

/* The message of this thread's last failure ("" when none). Valid until the next call on this thread. */
LEANATTN_API const char* leanattn_last_error(void);
LEANATTN_API const char* leanattn_version(void);
/* 1 when this library was built with its CUDA kernels. */
LEANATTN_API int leanattn_has_cuda(void);

LEANATTN_API leanattn_status leanattn_plan_create(const leanattn_problem* problem, leanattn_dtype dtype, leanattn_device_kind device,
                                                  const leanattn_plan_options* options, leanattn_plan** plan);
LEANATTN_API void leanattn_plan_destroy(leanattn_plan* plan);
LEANATTN_API leanattn_status leanattn_plan_workspace_bytes(const leanattn_plan* plan, size_t* bytes);
/* The plan as `leanattn schedule --format json` prints it; free with leanattn_free. A plan made with strategy "auto"
 * adds the key "auto": the kernel model, "planned_for" ("capacity": each plan weighed at the capacity and at ragged
 * live lengths below it), and every candidate weighed with its predicted time. */
LEANATTN_API leanattn_status leanattn_plan_json(const leanattn_plan* plan, char** json);

/* One decode step. `stream` is a cudaStream_t for CUDA plans (NULL: the default stream) and ignored on the
 * CPU; `threads` is the CPU's thread count (0: OpenMP's default, omp_get_max_threads(), OMP_NUM_THREADS where set) and ignored on the GPU. A workspace serves one step at a
 * time: steps that may run at once (other threads, other CUDA streams) need a workspace each (one plan may serve
 * them all). On the CPU a run on a workspace another run is using is refused (INVALID_ARGUMENT); on a GPU the two
 * would race, unnoticed. */
LEANATTN_API leanattn_status leanattn_run(const leanattn_plan* plan, const leanattn_tensors* tensors, void* workspace, size_t workspace_bytes,
                                          void* stream, int threads);

/* A host-lengths step: one decode step whose lengths the caller also holds in host memory (host_seqlens, (batch)
 * int32, equal to tensors->seqlens; for a ragged cache host_cu_seqlens too, else NULL). On the GPU the host
 * walks the plan at those lengths and passes every CTA's work in the kernel's launch: no prologue kernel,
 * ~3 us less per step on an H100 (README). Zero the workspace once before its first host-lengths step (every step
 * leaves it so); a captured step replays only with the lengths it was made with. CPU plans run as
 * leanattn_run does. */
LEANATTN_API leanattn_status leanattn_run_host_lengths(const leanattn_plan* plan, const leanattn_tensors* tensors, const int32_t* host_seqlens,
                                                  const int32_t* host_cu_seqlens, void* workspace, size_t workspace_bytes, void* stream,
                                                  int threads);

/* A staged step: a host-lengths step for a CUDA graph that is replayed while the lengths change. Before each
 * replay, outside the capture, leanattn_stage_step walks the plan at host_seqlens (as leanattn_run_host_lengths
 * does) and copies that work into the workspace on `stream`; the captured leanattn_run_staged reads it there.
 * On an H100 about a host-lengths step's time, 2-4 us less than a captured leanattn_run (README). Stage every
 * step, on the stream the graph is replayed on; staging while the stream captures is refused (a copy inside a graph
 * costs ~9 us a replay). A plan whose steps may need more than 512 CTAs or segments stages nothing and runs as
 * leanattn_run does, as do CPU plans (whose staging checks the tensors, lengths and workspace as a GPU's does, then
 * does nothing). Zero the workspace once before its first step. leanattn_stage_step neither reads nor writes out and
 * softmax_lse, nor checks them. */
LEANATTN_API leanattn_status leanattn_stage_step(const leanattn_plan* plan, const leanattn_tensors* tensors, const int32_t* host_seqlens,
                                                 const int32_t* host_cu_seqlens, void* workspace, size_t workspace_bytes, void* stream);
LEANATTN_API leanattn_status leanattn_run_staged(const leanattn_plan* plan, const leanattn_tensors* tensors, void* workspace, size_t workspace_bytes,
                                                 void* stream, int threads);

/* What `leanattn schedule --format json` and `leanattn simulate --format json` print for a problem; `dtype`
 * sets the simulated K/V element size; with strategy "auto" the key "auto" lists what was weighed (for the problem's
 * own lengths: "planned_for" "lengths"). Free the string with leanattn_free. */
LEANATTN_API leanattn_status leanattn_schedule_json(const leanattn_problem* problem, const leanattn_plan_options* options, char** json);
LEANATTN_API leanattn_status leanattn_simulate_json(const leanattn_problem* problem, const leanattn_plan_options* options, leanattn_dtype dtype,
                                                    char** json);
/* The same, with `plan_for` as the command line's --plan-for: NULL or "lengths" (the problem's lengths, as above), or
 * "capacity": the problem's lengths are a cache's capacities whose steps run at live lengths up to them, and strategy
 * "auto" weighs each plan there and at ragged live lengths below, as leanattn_plan_create does ("capacity" with
 * another strategy is refused: the others plan the same either way). */
LEANATTN_API leanattn_status leanattn_schedule_json_plan_for(const leanattn_problem* problem, const leanattn_plan_options* options,
                                                             const char* plan_for, char** json);
LEANATTN_API leanattn_status leanattn_simulate_json_plan_for(const leanattn_problem* problem, const leanattn_plan_options* options,
                                                             leanattn_dtype dtype, const char* plan_for, char** json);
LEANATTN_API void leanattn_free(void* p);

/* What one call may allocate and do: leanattn_plan_create, leanattn_schedule_json and leanattn_simulate_json
 * estimate their memory and work from the problem alone and refuse (LEANATTN_ERROR_INVALID_ARGUMENT, naming
 * the parameter) beyond these; a CPU plan's leanattn_run checks its work at the step's own lengths (a CUDA step has
 * no work limit: it is one core's time). Memory: $LEANATTN_MAX_MEMORY (bytes, or 512M,
 * 16G) or half of the memory available now; work: $LEANATTN_MAX_WORK (steps of about a nanosecond of one
 * core) or 3e11. */
LEANATTN_API leanattn_status leanattn_limits(int64_t* max_memory_bytes, int64_t* max_work);

#ifdef __cplusplus
}
#endif

#endif /* LEANATTN_H */
