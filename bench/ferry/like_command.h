#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "channel_flags.h"
#include "command.h"
#include "ferry/bench/load_options.h"

namespace ferry::bench {

// `ferry-bench like`: a Zipf workload on ferry.like.LikeService (build/bin/like-server): --calls
// SetLike and GetCounts calls in the --get-ratio mix, contents picked by Zipf's law (--zipf,
// --hot-share), each SetLike for one of --users signed-in users. The bench keeps every
// (content, user)'s last acknowledged state; after the load it waits until the provider's counts
// settle and checks that GetCounts of every content it wrote equals the number of users whose
// last state is liked.
extern const Command kLikeCommand;

struct LikeBenchOptions {
  LoadOptions load;  // target, conns, depth, threads (the other fields are unused)
  ChannelFlags channel;
  uint64_t calls = 100'000;      // --calls: SetLike + GetCounts calls
  double get_ratio = 0.5;        // --get-ratio: share of GetCounts among the calls
  double unlike_ratio = 0.25;    // --unlike-ratio: share of SetLike calls with liked = false
  uint32_t contents = 1'000;     // --contents: distinct contents
  uint32_t users = 10'000;       // --users: distinct users (at least conns x depth)
  double zipf_s = 0.99;          // --zipf: the exponent of the content popularity
  double hot_share = 0;          // --hot-share: calls naming the hottest content, on top of Zipf
  uint32_t batch = 10;           // --batch: content ids per GetCounts (1-100)
  uint32_t retries = 2;          // --retries: resends of a failed SetLike, same request_id
  int64_t content_base = 0;      // --content-base: content ids are base + 1 ...; 0: from the clock
  double duration_limit_s = 60;  // --duration-limit: no call starts after this
  double settle_timeout_s = 30;  // --settle-timeout: how long the counts may take to settle
  uint64_t seed = 1;             // --seed
  // --user-token-key ID:SECRET_FILE: each SetLike carries a user token for its user, made with
  // this key (the provider's `user_token` filter verifies it); empty id: none.
  std::string user_token_key_id;
  std::string user_token_secret;
  // --operator-key ID:SECRET_FILE: Reconcile (an operator method) is signed with this `auth`
  // key; empty id: unsigned.
  std::string operator_key_id;
  std::string operator_secret;
};

struct LikeBenchOutcome {
  uint64_t qps = 0;      // answered calls (both kinds) per second of the load
  uint64_t set_qps = 0;  // answered SetLike per second
  uint64_t get_qps = 0;  // answered GetCounts per second
  uint64_t p50_us = 0;   // of all answered calls
  uint64_t p99_us = 0;
  uint64_t set_p99_us = 0;
  uint64_t get_p99_us = 0;
  uint64_t set_calls = 0;     // SetLike calls answered (after their resends)
  uint64_t get_calls = 0;     // GetCounts calls answered
  uint64_t retries = 0;       // SetLike resends
  uint64_t rate_limited = 0;  // calls answered RESOURCE_EXHAUSTED (not applied)
  uint64_t errors = 0;        // calls failed otherwise, after their retries
  std::vector<std::pair<std::string, uint64_t>> errors_by_status;  // most frequent first
  int64_t contents_checked = 0;                                    // contents some SetLike named
  int64_t mismatched = 0;            // ... whose count is not the truth after settling
  int64_t uncertain_pairs = 0;       // (content, user) whose last SetLike's fate is unknown
  int64_t likes = 0;                 // the truth: liked pairs over every content
  int64_t settle_ms = -1;            // load end to every count right; -1: never within the timeout
  int64_t reconcile_violations = 0;  // of the hottest contents, once nothing is pending
  bool passed = false;
};

// The whole scenario. Writes progress, the summary, a "LIKE check=..." line and the RESULT line
// (always last on `out` once the load ran) to `out`, reasons for giving up to `err`. Returns 0
// when the check passed, 1 otherwise.
int RunLikeBench(const LikeBenchOptions& options, std::ostream& out, std::ostream& err,
                 LikeBenchOutcome* outcome = nullptr);

}  // namespace ferry::bench
