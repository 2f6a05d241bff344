#include "plan_registry.hpp"

#include <mutex>
#include <shared_mutex>
#include <unordered_set>

#include "core/input_error.hpp"

namespace leanattn::capi {

namespace {

struct Registry {
    std::shared_mutex mutex;
    std::unordered_set<const leanattn_plan*> live;
};

// Never destroyed: a plan may be destroyed from another library's static destructor, after this one's would have run.
Registry& registry() {
    static auto* r = new Registry;
    return *r;
}

}  // namespace

void register_plan(const leanattn_plan* plan) {
    Registry& r = registry();
    const std::unique_lock lock(r.mutex);
    r.live.insert(plan);
}

bool unregister_plan(const leanattn_plan* plan) {
    Registry& r = registry();
    const std::unique_lock lock(r.mutex);
    return r.live.erase(plan) == 1;
}

void require_live_plan(const leanattn_plan* plan) {
    if (plan == nullptr) throw InputError("plan", "is NULL");
    Registry& r = registry();
    const std::shared_lock lock(r.mutex);
    if (r.live.count(plan) == 0) {
        throw InputError("plan", "is not a live plan: destroyed already (leanattn_plan_destroy), or never made by leanattn_plan_create");
    }
}

}  // namespace leanattn::capi
