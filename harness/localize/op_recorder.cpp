// The recorder (op_recorder.h): a start and an end callback per op, a stack of open ops and user
// scopes; its own work (digests, row copies) runs with RecordFunction off and its kernels untagged.
#include "harness/localize/op_recorder.h"

#include <ATen/core/function_schema.h>
#include <ATen/record_function.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cases/dtypes.h"
#include "harness/kernel_capture.h"

namespace samebits::localize {
namespace {

// The recorder's own kernels carry this tag, and are dropped.
constexpr std::uint64_t kOwnTag = std::uint64_t{1} << 62;

struct OpContext final : at::ObserverContext {
  bool user_scope = false;
  std::int64_t start = 0;
  OpRecord record;
  std::vector<bool> returns_view;  // per return: may alias an argument (Tensor(a))
  std::vector<const void*> input_storages;
  std::unique_ptr<KernelCapture::Tag> tag;
};

TensorMeta meta_of(const at::Tensor& t) {
  TensorMeta m;
  m.shape = t.sizes().vec();
  if (t.layout() == at::kStrided) m.strides = t.strides().vec();
  m.dtype = std::string(c10::toString(t.scalar_type()));
  m.device = t.device().str();
  m.scalar_type = t.scalar_type();
  return m;
}

void for_each_tensor(c10::ArrayRef<const c10::IValue> values,
                     const std::function<void(const at::Tensor&)>& f) {
  for (const auto& v : values) {
    if (v.isTensor() && v.toTensor().defined()) f(v.toTensor());
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorVector())
        if (t.defined()) f(t);
  }
}

// Sums of the bit patterns mod two primes, one weighted by position: four int64 on t's device,
// none past 2^63 for fewer than 2^31 elements.
at::Tensor digest_of(const at::Tensor& t) {
  if (t.layout() != at::kStrided || t.is_complex() || t.is_quantized() || t.numel() == 0 ||
      t.is_meta())
    return {};
  static const std::map<std::size_t, at::ScalarType> same_width = {
      {1, at::kByte}, {2, at::kShort}, {4, at::kInt}, {8, at::kLong}};
  const auto width = same_width.find(t.element_size());
  if (width == same_width.end()) return {};
  const at::Tensor bits = t.detach().contiguous().view(width->second).reshape(-1).to(at::kLong);
  const at::Tensor lo = bits.remainder(65521);
  const at::Tensor hi = at::div(bits, 65521, "floor").remainder(65519);
  const at::Tensor where = at::arange(bits.numel(), bits.options()).remainder(65519).add_(1);
  return at::stack({lo.sum(), (lo * where).sum(), (hi * where).sum(),
                    at::scalar_tensor(bits.numel(), bits.options())});
}

// Ops that return memory they did not write: aten::empty and kin.
bool allocates_blank(const std::string& name) {
  for (const char* prefix : {"aten::empty", "aten::new_empty", "aten::resize"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

// The schema's text, and which returns alias an argument without writing it (views: their bits
// are their base's, compared where it was made, or memory nothing has written yet: mm's output
// buffer, allocated outside the dispatcher, before mm fills it).
void read_schema(const at::RecordFunction& fn, OpContext& ctx) {
  const auto schema = fn.operator_schema();
  if (!schema) return;
  std::ostringstream text;
  text << *schema;
  ctx.record.schema = text.str();
  for (const auto& r : schema->returns())
    ctx.returns_view.push_back(r.alias_info() != nullptr && !r.alias_info()->isWrite());
}

// A non-tensor argument's value (a dtype by its contract name), or why it has none to give.
void describe_value(const c10::Argument& a, const c10::IValue& v, ArgRecord& out) {
  if (v.isNone()) return;
  c10::TypePtr type = a.real_type();
  if (type->kind() == c10::TypeKind::OptionalType)
    type = type->castRaw<c10::OptionalType>()->getElementType();
  const auto integer = [](const c10::IValue& e) -> std::optional<std::int64_t> {
    if (e.isInt()) return e.toInt();
    if (e.isSymInt()) return e.toSymInt().maybe_as_int();
    return std::nullopt;
  };
  if (type->kind() == c10::TypeKind::ScalarTypeType && v.isInt()) {
    try {
      out.value = dtype_name(static_cast<c10::ScalarType>(v.toInt()));
    } catch (const std::invalid_argument&) {
      out.not_described = "a dtype no contract names";
    }
  } else if (v.isBool()) {
    out.value = v.toBool();
  } else if (v.isDouble()) {
    out.value = v.toDouble();
  } else if (const auto i = v.isInt() || v.isSymInt() ? integer(v) : std::nullopt) {
    out.value = *i;
  } else if (v.isString()) {
    out.value = v.toStringRef();
  } else if (v.isList() && !v.isTensorList()) {
    std::vector<std::int64_t> list;
    for (const c10::IValue& e : v.toListRef()) {
      const auto n = integer(e);
      if (!n) {
        out.not_described = fmt::format("a {} of other than integers", type->str());
        return;
      }
      list.push_back(*n);
    }
    out.value = std::move(list);
  } else {
    out.not_described = fmt::format("a {}", type->str());
  }
}

// Every argument of a top-level op by its schema's names, tensors as indices into r.inputs (in
// the order for_each_tensor visits them), and the names of its returns.
void read_args(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> values,
               OpRecord& r) {
  const auto& arguments = schema.arguments();
  std::size_t tensors = 0;
  for (std::size_t i = 0; i < arguments.size() && i < values.size(); ++i) {
    const c10::Argument& a = arguments[i];
    const c10::IValue& v = values[i];
    ArgRecord arg;
    arg.name = a.name();
    arg.type = a.real_type()->str();
    arg.defaults_to_none = a.default_value() && a.default_value()->isNone();
    if (v.isTensor()) {
      if (v.toTensor().defined()) arg.tensor = tensors++;
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) tensors += t.defined() ? 1 : 0;
      arg.not_described = "a list of tensors";
    } else {
      describe_value(a, v, arg);
    }
    r.args.push_back(std::move(arg));
  }
  for (std::size_t i = 0; i < schema.returns().size(); ++i) {
    const auto& name = schema.returns()[i].name();
    r.returns.push_back(name.empty() ? fmt::format("out{}", i) : name);
  }
}

}  // namespace

struct OpRecorder::State {
  RecorderOptions options;
  at::CallbackHandle handle = 0;
  std::unique_ptr<KernelCapture> capture;
  std::string capture_note;
  std::vector<OpRecord> ops;
  std::vector<std::string> regions;
  std::vector<std::int64_t> open;              // start ids of the ops running
  std::vector<std::int64_t> ordinal_of_start;  // start id -> completion ordinal
};

namespace {

thread_local OpRecorder::State* t_state = nullptr;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  OpRecorder::State* s = t_state;
  if (s == nullptr) return nullptr;
  const at::RecordFunctionGuard off(false);
  auto ctx = std::make_unique<OpContext>();
  if (fn.scope() == at::RecordScope::USER_SCOPE) {
    ctx->user_scope = true;
    s->regions.emplace_back(fn.name());
    return ctx;
  }
  // Metadata only here: no launches of the recorder's own to keep apart (a Tag here would also
  // pop the op's own tag when it ended, CUPTI's ids being a stack).
  ctx->start = static_cast<std::int64_t>(s->ordinal_of_start.size());
  s->ordinal_of_start.push_back(-1);
  OpRecord& r = ctx->record;
  r.parent = s->open.empty() ? -1 : s->open.back();
  r.depth = static_cast<std::int64_t>(s->open.size());
  r.name = fn.name();
  if (const auto op = fn.operator_name()) r.overload = op->overload_name;
  read_schema(fn, *ctx);
  for (std::size_t i = 0; i < s->regions.size(); ++i)
    r.region += (i > 0 ? "/" : "") + s->regions[i];
  // The caller's context of the ops it calls itself (the only ones a finding shows): a nested op's
  // would be the same stack, asked again (a Python hook takes the GIL each time).
  if (s->options.context && r.depth == 0) r.stack = s->options.context();
  for_each_tensor(fn.inputs(), [&](const at::Tensor& t) {
    r.inputs.push_back(meta_of(t));
    if (t.has_storage()) ctx->input_storages.push_back(t.storage().unsafeGetStorageImpl());
  });
  // What a contract needs to call it again alone: cheap, and kept for the callable's own ops only.
  if (r.depth == 0)
    if (const auto schema = fn.operator_schema()) read_args(*schema, fn.inputs(), r);
  s->open.push_back(ctx->start);
  // The op's own launches carry its tag; the recorder's digests at its end carry kOwnTag.
  if (s->capture) ctx->tag = std::make_unique<KernelCapture::Tag>(s->capture.get(), ctx->start + 1);
  return ctx;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* base) {
  OpRecorder::State* s = t_state;
  if (s == nullptr || base == nullptr) return;
  auto* ctx = static_cast<OpContext*>(base);
  const at::RecordFunctionGuard off(false);
  if (ctx->user_scope) {
    if (!s->regions.empty()) s->regions.pop_back();
    return;
  }
  ctx->tag.reset();
  const KernelCapture::Tag own(s->capture.get(), kOwnTag);
  OpRecord& r = ctx->record;
  const auto& outputs = fn.outputs();
  const bool allocates = allocates_blank(r.name);
  std::size_t k = 0;
  for_each_tensor(
      c10::ArrayRef<const c10::IValue>(outputs.data(), outputs.size()), [&](const at::Tensor& t) {
        OutputRecord o;
        o.meta = meta_of(t);
        const auto& views = ctx->returns_view;  // one entry may cover a list of tensors
        const bool may_alias = views.size() == 1 ? views[0] : k < views.size() && views[k];
        // A view where it does alias (x.to(dtype) converts into new memory when the dtype differs).
        const auto& in = ctx->input_storages;
        const bool view =
            may_alias && t.has_storage() &&
            std::find(in.begin(), in.end(), t.storage().unsafeGetStorageImpl()) != in.end();
        ++k;
        if (r.depth > 0) {
          o.item.not_kept = "inside another op (compared as its caller's output)";
        } else if (allocates || view) {
          o.item.not_kept = allocates ? "uninitialized memory" : "a view of an input";
        } else {
          o.pending_digest = digest_of(t);
          o.item = item_rows(t, s->options.map);
        }
        r.outputs.push_back(std::move(o));
      });
  r.ordinal = static_cast<std::int64_t>(s->ops.size());
  s->ordinal_of_start[static_cast<std::size_t>(ctx->start)] = r.ordinal;
  if (!s->open.empty()) s->open.pop_back();
  s->ops.push_back(std::move(r));
}

// The digests of every output, one copy per device they live on.
void read_digests(std::vector<OpRecord>& ops) {
  std::map<std::string, std::vector<OutputRecord*>> by_device;
  for (auto& op : ops)
    for (auto& o : op.outputs)
      if (o.pending_digest.defined()) by_device[o.pending_digest.device().str()].push_back(&o);
  for (auto& [device, outputs] : by_device) {
    std::vector<at::Tensor> all;
    for (const auto* o : outputs) all.push_back(o->pending_digest);
    const at::Tensor host = at::stack(all).cpu();
    const auto* v = host.data_ptr<std::int64_t>();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      outputs[i]->digest =
          fmt::format("{:x}.{:x}.{:x}.{:x}", v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
      outputs[i]->pending_digest = at::Tensor();
    }
  }
}

}  // namespace

OpRecorder::OpRecorder(RecorderOptions options) : state_(std::make_unique<State>()) {
  if (t_state != nullptr)
    throw std::logic_error("localize: a recorder already runs on this thread");
  state_->options = std::move(options);
  if (state_->options.capture_kernels) {
    state_->capture = KernelCapture::start(&state_->capture_note);
    if (state_->capture) state_->capture->take();  // launches before this run are not its own
  } else {
    state_->capture_note = "kernel capture off (a CPU run launches no CUDA kernels)";
  }
  t_state = state_.get();
  state_->handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&on_start, &on_end)
          .needsInputs(true)
          .needsOutputs(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE}));
}

OpRecorder::~OpRecorder() {
  if (state_ && state_->handle != 0) at::removeCallback(state_->handle);
  if (t_state == state_.get()) t_state = nullptr;
}

Recording OpRecorder::finish() {
  at::removeCallback(state_->handle);
  state_->handle = 0;
  t_state = nullptr;
  Recording out;
  out.map = state_->options.map;
  for (auto& op : state_->ops)
    if (op.parent >= 0) op.parent = state_->ordinal_of_start[static_cast<std::size_t>(op.parent)];
  read_digests(state_->ops);
  if (state_->capture) {
    auto launches = state_->capture->take();
    for (std::size_t start = 0; start < state_->ordinal_of_start.size(); ++start) {
      const auto ordinal = state_->ordinal_of_start[start];
      const auto it = launches.find(start + 1);  // an op's tag is its start id plus one
      if (ordinal >= 0 && it != launches.end())
        state_->ops[static_cast<std::size_t>(ordinal)].kernels = std::move(it->second);
    }
    out.kernels_captured = true;
  }
  out.kernels_note = state_->capture_note;
  out.ops = std::move(state_->ops);
  return out;
}

Recording record(const std::function<void()>& f, RecorderOptions options) {
  OpRecorder recorder(std::move(options));
  const auto begin = std::chrono::steady_clock::now();
  f();
  if (at::hasCUDA()) cudaDeviceSynchronize();
  const auto end = std::chrono::steady_clock::now();
  Recording r = recorder.finish();
  r.wall_ms = std::chrono::duration<double, std::milli>(end - begin).count();
  return r;
}

std::string full_name(const OpRecord& op) {
  return op.overload.empty() ? op.name : op.name + "." + op.overload;
}

}  // namespace samebits::localize
