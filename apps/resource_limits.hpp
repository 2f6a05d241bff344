// resource_limits.hpp — how much memory and work one call may take on this machine (the platform side of
// core/cost_estimate.hpp, shared by the command line and the C ABI).
//
// Memory: LEANATTN_MAX_MEMORY when set, else half of what the machine has available now (the smallest of
// /proc/meminfo's MemAvailable, the cgroup's memory.max less its usage, and the address-space limit).
// Work: LEANATTN_MAX_WORK when set, else default_max_work. The command line's --max-memory and --max-work
// override both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/cost_estimate.hpp"

namespace leanattn::app {

// 3e11 steps: about five minutes of one core.
inline constexpr std::int64_t default_max_work = 300'000'000'000;

// The limits from the environment and the machine. `flags` names the command-line flags that override
// them (empty for the C ABI), for the messages. Throws InputError naming the variable when one is malformed.
CostLimits resource_limits(const std::string& memory_flag = {}, const std::string& work_flag = {});

// The work limit alone (LEANATTN_MAX_WORK or the default; a malformed variable is an InputError), and where
// it comes from: cheap enough for every decode step.
std::int64_t work_limit();
std::string work_limit_source();

// Bytes available to this process now (see above), or nullopt when none of the sources can be read.
std::optional<std::int64_t> available_memory_bytes();

// "4096", "512M", "16G", "1.5G", "2T" (powers of 1024); nullopt when malformed, negative or beyond 2^63.
std::optional<std::int64_t> parse_byte_size(const std::string& text);
// "1000000", "3e11": a non-negative count; nullopt when malformed or beyond 2^63.
std::optional<std::int64_t> parse_count(const std::string& text);

}  // namespace leanattn::app
