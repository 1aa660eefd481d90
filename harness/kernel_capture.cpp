// Records which CUDA kernels ran, with grid, block, registers and shared memory, through CUPTI's
// activity API; each launch is tied to the tag (an external correlation id) active when it was
// made.
#include "harness/kernel_capture.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

namespace samebits {
namespace {

// The kernel record layout of the CUPTI we compile against (kineto makes the same choice).
#if CUDA_VERSION >= 13010
using KernelRecord = CUpti_ActivityKernel11;
#elif CUDA_VERSION >= 13000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif

constexpr std::size_t kBufferBytes = 8u << 20;

// CUPTI calls back on its own thread, so everything it fills sits behind one mutex.
// Records carry the round they arrived in (how many take() calls came before): a record whose pair
// has not arrived by the end of the next round is dropped.
struct Collector {
  std::mutex mu;
  std::uint64_t round = 0;
  // CUPTI correlation id -> tag, round
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> tag_of;
  struct Launch {
    std::uint32_t correlation;
    std::uint64_t round;
    KernelLaunch launch;
  };
  std::vector<Launch> launches;
  std::uint64_t dropped = 0;
};

Collector& collector() {
  static Collector c;
  return c;
}

std::atomic<bool> g_running{false};

// The Pending tag of this thread, and how deep its ComputeScopes are nested.
thread_local KernelCapture* t_capture = nullptr;
thread_local std::uint64_t t_pending = 0;
thread_local int t_scope_depth = 0;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                               size_t valid_bytes) {
  Collector& c = collector();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto* k = reinterpret_cast<const KernelRecord*>(record);
        KernelLaunch launch;
        launch.name = demangle(k->name);
        launch.grid = {static_cast<std::uint32_t>(k->gridX), static_cast<std::uint32_t>(k->gridY),
                       static_cast<std::uint32_t>(k->gridZ)};
        launch.block = {static_cast<std::uint32_t>(k->blockX),
                        static_cast<std::uint32_t>(k->blockY),
                        static_cast<std::uint32_t>(k->blockZ)};
        launch.registers = k->registersPerThread;
        launch.static_smem = static_cast<std::uint32_t>(k->staticSharedMemory);
        launch.dynamic_smem = static_cast<std::uint32_t>(k->dynamicSharedMemory);
        launch.count = 1;
        launch.duration_ns = k->end > k->start ? k->end - k->start : 0;
        c.launches.push_back({k->correlationId, c.round, std::move(launch)});
      } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
          c.tag_of[e->correlationId] = {e->externalId, c.round};
        }
      }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
      c.dropped += dropped;
    }
  }
  std::free(buffer);
}

std::string cupti_error(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text ? text : fmt::format("CUPTI error {}", static_cast<int>(r));
}

// The activity kinds samebits needs: kernels, the external ids, and the API records that carry
// them.
const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                     CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                     CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

}  // namespace

std::string demangle(const char* symbol) {
  if (!symbol) return "";
  int status = 0;
  char* out = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string name = status == 0 && out ? out : symbol;
  std::free(out);
  return name;
}

std::unique_ptr<KernelCapture> KernelCapture::start(std::string* why_not) {
  if (g_running.exchange(true)) {
    *why_not = "kernel capture is already running in this process";
    return nullptr;
  }
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  std::size_t enabled = 0;
  for (; r == CUPTI_SUCCESS && enabled < std::size(kKinds); ++enabled) {
    r = cuptiActivityEnable(kKinds[enabled]);
    if (r != CUPTI_SUCCESS) break;
  }
  if (r != CUPTI_SUCCESS) {
    for (std::size_t i = 0; i < enabled; ++i) cuptiActivityDisable(kKinds[i]);
    g_running = false;
    *why_not = fmt::format(
        "CUPTI is not available ({}); another tool (a profiler, compute-sanitizer) may hold it",
        cupti_error(r));
    return nullptr;
  }
  return std::unique_ptr<KernelCapture>(new KernelCapture());
}

KernelCapture::~KernelCapture() {
  cudaDeviceSynchronize();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (auto kind : kKinds) cuptiActivityDisable(kind);
  Collector& c = collector();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.tag_of.clear();
    c.launches.clear();
  }
  g_running = false;
}

KernelCapture::Tag::Tag(KernelCapture* capture, std::uint64_t id) {
  if (capture && id != 0) {
    active_ = cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) ==
              CUPTI_SUCCESS;
  }
}

KernelCapture::Tag::~Tag() {
  if (active_) {
    std::uint64_t id = 0;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
  }
}

KernelCapture::Pending::Pending(KernelCapture* capture, std::uint64_t id)
    : previous_capture_(t_capture), previous_id_(t_pending) {
  t_capture = capture;
  t_pending = id;
}

KernelCapture::Pending::~Pending() {
  t_capture = previous_capture_;
  t_pending = previous_id_;
}

ComputeScope::ComputeScope() {
  if (t_scope_depth++ == 0 && t_capture && t_pending != 0) {
    tag_ = std::make_unique<KernelCapture::Tag>(t_capture, t_pending);
  }
}

ComputeScope::~ComputeScope() {
  tag_.reset();
  --t_scope_depth;
}

std::unordered_map<std::uint64_t, std::vector<KernelLaunch>> KernelCapture::take() {
  cudaDeviceSynchronize();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  Collector& c = collector();
  std::lock_guard<std::mutex> lock(c.mu);
  std::unordered_map<std::uint64_t, std::vector<KernelLaunch>> by_tag;
  std::vector<Collector::Launch> waiting;
  for (auto& l : c.launches) {
    const auto it = c.tag_of.find(l.correlation);
    if (it != c.tag_of.end()) {
      merge_launches(by_tag[it->second.first], {std::move(l.launch)});
    } else if (l.round == c.round) {
      waiting.push_back(std::move(l));  // its tag record may come with the next flush
    }  // else: launched outside every Tag
  }
  c.launches = std::move(waiting);
  // A tag record stays one round more: a graph launch's kernels share its correlation id, and a
  // launch on another thread may arrive after this flush.
  for (auto it = c.tag_of.begin(); it != c.tag_of.end();) {
    it = it->second.second < c.round ? c.tag_of.erase(it) : std::next(it);
  }
  ++c.round;
  return by_tag;
}

void merge_launches(std::vector<KernelLaunch>& into, std::vector<KernelLaunch>&& more) {
  const auto same = [](const KernelLaunch& a, const KernelLaunch& b) {
    return a.name == b.name && a.grid == b.grid && a.block == b.block &&
           a.registers == b.registers && a.static_smem == b.static_smem &&
           a.dynamic_smem == b.dynamic_smem;
  };
  for (auto& launch : more) {
    const auto found = std::find_if(into.begin(), into.end(),
                                    [&](const KernelLaunch& k) { return same(k, launch); });
    if (found == into.end()) {
      into.push_back(std::move(launch));
    } else {
      found->count += launch.count;
      found->duration_ns += launch.duration_ns;
    }
  }
}

std::uint64_t KernelCapture::dropped_records() const {
  Collector& c = collector();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.dropped;
}

}  // namespace samebits
