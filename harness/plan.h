// Turns contracts into the list of cases to run on one device: validates every axis and point
// against the op and check (errors name file, JSON path and accepted values), then expands sweeps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cases/sweep.h"
#include "contracts/contract.h"
#include "harness/op_registry.h"

namespace samebits {

struct CaseSpec {
  std::string id;  // contract/check/impl/device/axis=value,...
  const Contract* contract = nullptr;
  const CheckDecl* check = nullptr;
  const Op* op = nullptr;
  std::string impl;
  std::string device;      // "cpu" or "cuda"
  Point declared;          // the axes the contract names (they make the id)
  Point resolved;          // declared plus every default, as the op and check read them
  std::uint64_t seed = 0;  // from the run's seed and the id, not from the position in the run
  // The case's position in the whole run (after --filter or --case, before --shard): what orders
  // the cases of a run's shares when they are merged (select_cases numbers them).
  std::int64_t index = 0;
};

// Throws ContractError for anything the op or check cannot accept, before anything runs.
void validate_contract(const Contract& contract, const OpRegistry& registry);

// The most elements one call of an op may hold (Op::call_elements); a larger point is refused.
inline constexpr std::int64_t kMaxCallElements = std::int64_t{1} << 32;

// Every case of the contracts on `device` (validated first), in contract, check, implementation,
// point order. The run's `seed` enters every case's seed.
std::vector<CaseSpec> plan_cases(const std::vector<std::unique_ptr<Contract>>& contracts,
                                 const OpRegistry& registry, const std::string& device,
                                 std::uint64_t seed);

}  // namespace samebits
