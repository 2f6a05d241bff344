// schedule_json.hpp — `schedule --format json`, exactly the keys docs/design.md promises.
#pragma once

#include <nlohmann/json.hpp>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

nlohmann::ordered_json schedule_to_json(const Schedule& schedule, const ScheduleTable& table);

}  // namespace leanattn::app
