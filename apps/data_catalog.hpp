// data_catalog.hpp — devices, models and kernel models from data/ (data/devices, data/models, data/kernels).
//
// data/ is found through $LEANATTN_DATA, then beside the binary that holds this code (the executable, or
// libleanattn.so): ../share/leanattn/data (an installed tree), ../data, ../../data (a build tree); then in the
// source tree it was built from. A file is read only when it is a regular file of at most
// max_data_file_bytes; malformed files are refused with InputError naming the file and the key
// (device_file.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/device_spec.hpp"
#include "device_file.hpp"
#include "kernel_file.hpp"

namespace leanattn::app {

std::filesystem::path data_dir();

// NAME is looked up in data/devices; anything with a '/' or ending in .json is read as a file.
DeviceSpec load_device(const std::string& name_or_file);
ModelShape load_model(const std::string& name_or_file);
// A kernel model: `paper` (sim::paper_kernel of `device`: the device file's own timing keys), a name in
// data/kernels, or a .json file (kernel_file.hpp).
sim::KernelModel load_kernel(const std::string& name_or_file, const DeviceSpec& device);

// The name (for load_device) of the data/devices file that describes the GPU CUDA calls `cuda_name` (e.g. "NVIDIA
// H200"): the one with a "cuda_names" entry inside it, the longest such entry where several files match; empty when
// none does. Unreadable files are passed over (`leanattn devices` names them). The answer for a data folder and a GPU
// is kept for the rest of the process.
std::string device_for_gpu(const std::string& cuda_name);
// What a plan made on that GPU reads when no device is named: device_for_gpu's file, else h100-sxm (the GPU the
// kernel models were fitted on).
std::string default_device_for_gpu(const std::string& cuda_name);

// Every file of data/devices (data/models) that reads, in name order; `refused` collects the messages of
// those that do not, so one broken file does not hide the others.
std::vector<DeviceSpec> list_devices(std::vector<std::string>& refused);
std::vector<ModelShape> list_models(std::vector<std::string>& refused);

}  // namespace leanattn::app
