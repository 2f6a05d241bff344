// plan_registry_speed.cpp — host time of the C ABI's live-plan check (capi/plan_registry.hpp), which every call that
// takes a plan pays: require_live_plan on 64 live plans in turn, 10 million calls, one thread (uncontended).
//   bench_plan_registry_speed
#include <chrono>
#include <cstdio>

#include "capi/plan_registry.hpp"

struct leanattn_plan {  // the registry keeps pointers only: a stand-in of the library's plan
    int unused;
};

int main() {
    static leanattn_plan plans[64];
    for (const leanattn_plan& p : plans) leanattn::capi::register_plan(&p);
    constexpr int calls = 10'000'000;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) leanattn::capi::require_live_plan(&plans[i % 64]);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls;
    std::printf("require_live_plan: %.1f ns a call (64 live plans, one thread)\n", ns);
}
