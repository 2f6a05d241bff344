// device_file.hpp — device and model files (data/devices/*.json, data/models/*.json) from their text.
//
// Every refusal is an InputError naming the file (as the parameter `device` or `model`) and the key, with
// why: malformed JSON, a duplicate or missing key, a wrong type, a value out of range (core's check_device
// ranges for devices). Kept apart from the file system (data_catalog.hpp) so a fuzzer can feed it bytes.
#pragma once

#include <cstdint>
#include <string>

#include "core/device_spec.hpp"

namespace leanattn::app {

struct ModelShape {
    std::string name;
    std::string description;
    std::int64_t q_heads = 0;
    std::int64_t kv_heads = 0;
    std::int64_t head_dim = 0;
    std::int64_t hidden_size = 0;
    std::int64_t layers = 0;
};

// Files larger than this are refused unread: the largest real one is under 2 kB.
inline constexpr std::int64_t max_data_file_bytes = 1 << 20;

// `source` names the file in messages.
DeviceSpec device_from_text(const std::string& text, const std::string& source);
ModelShape model_from_text(const std::string& text, const std::string& source);

}  // namespace leanattn::app
