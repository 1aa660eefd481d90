// localize on the decoder, end to end: record both runs of a setup, compare them, and where an op
// family's ATen op diverges first, rerun with that family from samebits to see where it goes.
#pragma once

#include "harness/localize/decoder_runs.h"
#include "harness/localize/finding.h"

namespace samebits::localize {

// The finding for one setup. With follow, after a first divergence inside an op family the mix
// takes from ATen (its region names one: "layer.0.attn.q/linear"), the setup is rerun with that
// family from samebits, and again after that, until the divergence disappears or names no such
// family (the planted control names none): each rerun one FollowUp.
Finding localize_decoder(const DecoderSetup& s, bool follow);

// The op family of a region ("linear" for "layer.0.mlp.up/linear"), innermost first; empty if none.
std::string family_of(const std::string& region);

}  // namespace samebits::localize
