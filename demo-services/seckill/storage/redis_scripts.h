#pragma once

#include "ferry/storage/redis_script_set.h"

namespace ferry::seckill {

// The Lua scripts of the Redis reservation cache, loaded with SCRIPT LOAD and run by EVALSHA.
// Every key a script touches comes in KEYS, all of one activity+sku (one hash tag, see
// redis_keys.h), so they run unchanged on Redis Cluster. Each script checks its arguments and
// reads (or type-checks) every key it writes before its first write; a malformed call or a stock
// that is not an integer gets an error reply "ERR seckill <script>: ...", a key of the wrong
// type a WRONGTYPE error, and nothing is written. Only the re-drive lease expires.

// The loaded marker says which cache generation the keys hold and whether it sells:
//   "<epoch>@<gen>"   generation <epoch> (a decimal the database also records), loaded while
//                     the activity's generation key (a hash `gen` field, see
//                     storage::RedisGeneration) held <gen>: once the key holds another (the
//                     server restarted, was restored or replaced by a replica), the marker is
//                     of no current generation and nothing sells until a reload
//   "loading:<epoch>:<since_ms>|<origin>"
//                     a reload of generation <epoch> closed sales at <since_ms> and is loading
//                     the keys, which still hold the data of marker <origin> (one of the other
//                     two forms, or "")
//   "stale:<epoch>"   generation <epoch> was found to have lost reservations
// Purchases and releases name the generation they expect and are refused on any other.

// KEYS: stock, loaded, buyers, requests, accepted, orders, generation
// ARGV: activity id, sku id, user, request id, order_no, now_ms, epoch (integers in decimal)
// Returns {answer, replayed, order_no}:
//   answer    "A" accepted, "S" sold out, "J" already joined, "M" cache missing, "L" a reload
//             is loading the keys, "E" the keys are of another generation, or stale
//   replayed  1 when the request id was answered before: that answer is returned, nothing written
//   order_no  "A": the order number (the first one when replayed); "" otherwise
// "M", "L" and "E" write nothing, and come before any replay: keys of another generation answer
// nothing. "J" and "S" record the answer under the request id. "A" appends {activity, sku,
// user, request, order_no, reserved_ms, epoch, seq} to the orders stream (seq: accepted + 1),
// sets accepted to seq, decrements stock, adds the user to buyers and records
// "A:<order_no>:<now_ms>:<user>" under the request id.
extern const storage::RedisScript kReserveScript;

// KEYS: loaded
// ARGV: expected marker ("" for none), epoch, now_ms
// Returns 1 when the marker was the expected one and is now "loading:<epoch>:<now_ms>|<origin>"
// (sales closed; origin: the expected marker, or its own origin when it was a loading one), 0
// otherwise (another reload fenced first; nothing written).
extern const storage::RedisScript kFenceScript;

// KEYS: stock, loaded, buyers, requests, accepted, released, orders, generation,
//       staged buyers, staged released
// ARGV: epoch, "keep" or "wipe", stock, consumer group
// Returns 1 (the marker is not "loading:<epoch>:...": another reload fenced it; nothing written)
// or 0: "wipe" deletes requests, accepted and orders (keys of another activity, or none left);
// buyers and released are replaced by the staged sets (filled beforehand, in chunks, while the
// marker kept sales closed), the consumer group exists on the orders stream (created at id 0
// with MKSTREAM unless it already did), stock is set and the marker set to
// "<epoch>@<generation key's gen>". An error "NOGEN ..." when the generation key is missing.
extern const storage::RedisScript kPreheatScript;

// KEYS: loaded, stock, released, generation
// ARGV: release key, epoch
// Returns 1 when the key was added to released and stock incremented; 0 when the key was
// released before; -1 when the keys are not of generation epoch (no marker, another, a loading
// or a stale one) or hold no stock, writing nothing.
extern const storage::RedisScript kReleaseScript;

// KEYS: orders, dead_letters
// ARGV: consumer group, event id, reason, detail, max letters
// Returns 1 when the event was pending and is now acknowledged and appended to dead_letters as
// {reason, detail, event_id, payload: its fields as a JSON array (`[]` when the entry is
// gone)}, trimmed to about max letters; 0 when it was not pending (or there is no group),
// writing nothing.
extern const storage::RedisScript kDeadLetterScript;

// KEYS: orders
// Returns how many entries XTRIM MINID removed: every entry before the oldest one some group
// still holds pending or has not delivered yet (per group: its oldest pending entry, else its
// last delivered one, which is kept). A stream without groups is left alone.
extern const storage::RedisScript kTrimScript;

// KEYS: redrive_lease
// ARGV: holder, ttl_ms
// Returns 1 when the lease is now the holder's for ttl_ms (taken, or renewed by its holder);
// 0 while another holder's lease runs.
extern const storage::RedisScript kLeaseScript;
// KEYS: loaded
// ARGV: epoch
// Returns 1 when the marker was of generation epoch and is now "stale:<epoch>", 0 otherwise
// (nothing written).
extern const storage::RedisScript kMarkStaleScript;

}  // namespace ferry::seckill
