// A test-only op that misbehaves on demand (its "fault" axis): it aborts, dereferences a null
// pointer, hangs, allocates absurdly, or on CUDA writes out of bounds or spins in a kernel.
#include "tests/faults/planted_fault_op.h"

#include <ATen/cuda/CUDAContext.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "cases/draw.h"
#include "harness/ops/op_support.h"
#include "tests/faults/planted_fault_kernels.h"

namespace samebits {
namespace {

// A host allocation no machine grants (2^60 bytes), kept from being optimized away.
void allocate_absurdly_on_the_host() {
  static char* volatile kept = nullptr;
  kept = new char[std::size_t{1} << 60];
  kept[0] = 1;
}

void plant_on_cuda(test_faults::GpuFault fault, const at::Device& device) {
  at::Tensor buffer = at::zeros({32}, at::TensorOptions().device(device).dtype(at::kFloat));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  const kernels::Status status =
      test_faults::plant_gpu_fault(fault, buffer.data_ptr<float>(), buffer.numel(), stream);
  if (status != kernels::Status::ok) {
    throw std::runtime_error(fmt::format("planted fault: launch failed: {} ({})",
                                         kernels::to_string(status),
                                         cudaGetErrorString(cudaGetLastError())));
  }
  const cudaError_t sync = cudaStreamSynchronize(stream);  // the spin never comes back
  if (sync != cudaSuccess) {
    throw std::runtime_error(
        fmt::format("planted fault: CUDA error: {}", cudaGetErrorString(sync)));
  }
}

void plant(const std::string& fault, const at::Device& device) {
  if (fault == "none") return;
  // A last word on stderr, which the isolating parent keeps in the case's reason.
  std::fprintf(stderr, "planted fault: %s on %s\n", fault.c_str(), device.str().c_str());
  if (fault == "error") TORCH_CHECK(false, "planted fault: an op error");
  if (fault == "abort") std::abort();
  if (fault == "segv") {
    int* volatile nowhere = nullptr;  // volatile: the compiler cannot see the null and trap early
    *nowhere = 1;
  }
  if (fault == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (fault == "alloc") {
    if (!device.is_cuda()) allocate_absurdly_on_the_host();
    // 2^50 bytes on the GPU: the caching allocator raises c10::OutOfMemoryError.
    at::empty({std::int64_t{1} << 50}, at::TensorOptions().device(device).dtype(at::kByte));
  }
  if (fault == "oob") plant_on_cuda(test_faults::GpuFault::out_of_bounds, device);
  if (fault == "gpu_hang") plant_on_cuda(test_faults::GpuFault::spin_forever, device);
}

class PlantedFaultOp final : public Op {
 public:
  std::string name() const override { return "planted_fault"; }
  std::string description() const override {
    return "test-only: x.sum(1) of [rows, N] items, after the fault its \"fault\" axis names";
  }
  std::vector<ImplSpec> implementations() const override {
    return {{"aten", "at::sum over dim 1, after the planted fault", true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"rows", AxisSpec::Type::integer, 2, {}, "rows of each item"},
            {"N", AxisSpec::Type::integer, 8, {}, "columns of each item"},
            {"fault",
             AxisSpec::Type::text,
             "none",
             {"none", "error", "abort", "segv", "hang", "alloc", "oob", "gpu_hang"},
             "none; error (a c10::Error, as a failing op raises); abort (std::abort), segv (a "
             "write through a null pointer), hang (sleeps "
             "forever), alloc (2^60 bytes on the host, 2^50 on CUDA); on CUDA oob (a kernel "
             "writes 4 TiB past its buffer) and gpu_hang (a kernel spins forever)"},
            dtype_axis("float32"),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {"out"}; }
  std::vector<CheckKind> checks() const override { return {CheckKind::determinism}; }
  std::vector<LayoutKind> layouts() const override { return {}; }

  double call_elements(const Point& p, double items) const override {
    return items * static_cast<double>(p.integer("rows")) * static_cast<double>(p.integer("N"));
  }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("rows") < 1 || p.integer("N") < 1) return "rows and N must be positive";
    return std::nullopt;
  }
  std::optional<std::string> unsupported(const Point& p, const std::string&,
                                         const at::Device& device) const override {
    const std::string fault = p.text("fault");
    if ((fault == "oob" || fault == "gpu_hang") && !device.is_cuda()) {
      return fmt::format("fault {} needs a CUDA device", fault);
    }
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec&, const at::Device& device,
                 at::Generator& gen) const override {
    return {{draw(p, {p.integer("rows"), p.integer("N")}, device, gen)}, p.integer("N")};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    std::vector<Outputs> out;
    for (const Item* item : r.items) {
      const at::Tensor& x = item->inputs.at(0);
      const ComputeScope under_test;
      plant(p.text("fault"), x.device());
      out.push_back({{"out", x.sum(1)}});
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Op> make_planted_fault_op() {
  return std::make_unique<PlantedFaultOp>();
}

OpRegistry ops_with_planted_faults() {
  OpRegistry registry = OpRegistry::builtin();
  registry.add(make_planted_fault_op());
  return registry;
}

}  // namespace samebits
