// data_catalog.hpp — devices and models from data/ (data/devices/*.json, data/models/*.json).
//
// data/ is found through $LEANATTN_DATA, then beside the binary that holds this code (the executable, or
// libleanattn.so): ../share/leanattn/data (an installed tree), ../data, ../../data (a build tree); then in the
// source tree it was built from. Malformed files are refused with InputError naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

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

std::filesystem::path data_dir();

// NAME is looked up in data/devices; anything with a '/' or ending in .json is read as a file.
DeviceSpec load_device(const std::string& name_or_file);
std::vector<DeviceSpec> list_devices();

ModelShape load_model(const std::string& name_or_file);
std::vector<ModelShape> list_models();

}  // namespace leanattn::app
