#pragma once

#include <string_view>
#include <vector>

#include "ferry/storage/redis_script_set.h"

namespace ferry::like {

// The scripts' indices in LikeScripts(). Every key a script names is in one partition's slot
// (redis_like_keys.h): a bucket's m(embers), n (count), v(ersions), r(eady), and its
// partition's g(eneration), s(tream), t(ombstones). A script that finds the generation key
// missing answers -6 (a flush: check the server, RedisGeneration::Check, then call again);
// "not loaded" (-1) means the bucket's marker is missing or of another generation.
enum LikeScript : size_t {
  // KEYS m n v r g s t [request window now, before]; ARGV user, liked (0|1), content,
  // bucket, layout, request field, request window ttl ms, backlog limit (0: none), tombstone
  // member. {changed (0|1) or 2 + the first answer (a replay), bucket count, version}; -1 not
  // loaded; {-3, 0, 0, layout} the bucket is laid out otherwise ("m:<2n>": being raised);
  // -4 the request id was used with the other state; -5 the stream holds `backlog` changes
  // not yet trimmed (persistence lags).
  kSetLike = 0,
  // KEYS m n v r g t; ARGV layout, ttl ms of an empty bucket's marker (0: it stays), floor,
  // tombstone member prefix, then user, liked, version per database row. Loads the bucket
  // unless it is loaded in this generation (0): per user the higher version of Redis's copy
  // and the row wins, the row on a tie. An empty bucket's marker expires after the ttl.
  // 1 when loaded.
  kLoadBucket = 1,
  // KEYS m n v r g t; ARGV user, liked, version, tombstone member, mode (newer | tie |
  // force). The record's state of a pair into the bucket if its version is newer (tie: or
  // equal; force: whatever Redis holds): 1 applied, 0 not newer, -1 not loaded.
  kApplyChange = 2,
  // KEYS r g s; ARGV n, 2n. Marks bucket k of n as moving to 2n ("m:<2n>"): {1, the stream's
  // last entry id} when it is (now or already), {2} when it moved already, {0, layout} when
  // it is laid out otherwise, -1 not loaded.
  kFreeze = 3,
  // KEYS r g; ARGV n, 2n: a frozen bucket back to n (a raise given up).
  kUnfreeze = 4,
  // KEYS m n v r g t [request windows now, before] of bucket k + n; ARGV 2n, floor, tombstone
  // member prefix, request window ttl ms, user count, then user, liked, version per moved
  // user, then (now | before), field, answer per moved request id. 0 when the bucket is
  // loaded already (a second raiser), 1 when loaded.
  kSplitLoad = 5,
  // KEYS m n v r g [request windows now, before] of bucket k; ARGV 2n, user count, users,
  // then request fields: the moved users leave k, whose marker becomes 2n.
  kFinishSplit = 6,
  // KEYS t, then versions keys; ARGV per tombstone: versions key index (from 2), user,
  // version, member. Drops each tombstone still at that version, raising the bucket's floor.
  kTrimTombstones = 7,
  // KEYS m n v r g s; ARGV content, bucket, stream id (exclusive), most entries read.
  // {layout or "", generation, count, members, versions (flat), pending (user, liked, version
  // per entry of this bucket after the id), entries read}.
  kSnapshot = 8,
  // KEYS v m s r g; ARGV user, version, content, bucket: appends the pair's change again (a
  // lost event) if its version is still `version`. 1 when appended.
  kReappend = 9,
  // KEYS m n r g: the count set to the set's size. {old, new}, or -1 not loaded.
  kFixCount = 10,
  // KEYS m n v r g s; ARGV content, stream id: deletes the bucket if no change of the content
  // follows the id in the stream. 1 deleted, 0 changes pending.
  kUnload = 11,
  // KEYS owner; ARGV holder, ttl ms: renews the lease if `holder` holds it (1), else 0.
  kRenewLease = 12,
  // KEYS owner; ARGV holder: gives the lease up if `holder` holds it.
  kReleaseLease = 13,
};

std::vector<storage::RedisScript> LikeScripts();

}  // namespace ferry::like
