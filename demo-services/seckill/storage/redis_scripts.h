#pragma once

#include "ferry/storage/redis_script_set.h"

namespace ferry::seckill {

// The Lua scripts of the Redis reservation cache, loaded with SCRIPT LOAD and run by EVALSHA.
// Every key a script touches comes in KEYS, all of one activity+sku (one hash tag, see
// redis_keys.h), so they run unchanged on Redis Cluster. Each script checks its arguments and
// the types of its keys before its first write; a malformed call or a stock that is not an
// integer gets an error reply "ERR seckill <script>: ...", a key of the wrong type
// "WRONGTYPE seckill <script>: ...", and nothing is written. Only the re-drive lease expires.

// The loaded marker holds the cache generation (a decimal epoch the database also records) the
// keys were loaded as, or "stale:<epoch>" once the keys were found to have lost reservations.
// Purchases and releases name the generation they expect and are refused on any other.

// KEYS: stock, loaded, buyers, requests, accepted, orders
// ARGV: activity id, sku id, user, request id, order_no, now_ms, epoch (integers in decimal)
// Returns {answer, replayed, order_no}:
//   answer    "A" accepted, "S" sold out, "J" already joined, "M" cache missing, "E" the keys
//             are of another generation, or stale
//   replayed  1 when the request id was answered before: that answer is returned, nothing written
//   order_no  "A": the order number (the first one when replayed); "" otherwise
// "M" (no stock or no loaded marker) and "E" write nothing, and come before any replay: keys of
// another generation answer nothing. "J" and "S" record the answer under the request id. "A"
// decrements stock, adds the user to buyers, records "A:<order_no>:<now_ms>:<user>" under the
// request id, increments accepted and appends {activity, sku, user, request, order_no,
// reserved_ms, epoch, seq} to the orders stream, seq being accepted's new value.
extern const storage::RedisScript kReserveScript;

// KEYS: stock, loaded, buyers, requests, accepted, released, orders
// ARGV: epoch, expected marker ("" for none), "keep" or "wipe", stock, consumer group, buyer
//       count n, n buyers, then release keys already accounted for
// Returns 1 (the marker is not the expected one: another preheat ran; nothing written) or 0:
// "wipe" deletes requests, accepted and orders (keys of another activity); buyers and released
// are replaced; the consumer group exists on the orders stream (created at id 0 with MKSTREAM
// unless it already did); stock is set and the marker set to epoch.
extern const storage::RedisScript kPreheatScript;

// KEYS: loaded, stock, released
// ARGV: release key, epoch
// Returns 1 when the key was added to released and stock incremented; 0 when the key was
// released before; -1 when the keys are not of generation epoch (no marker, another or a stale
// one) or hold no stock, writing nothing.
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
// Returns 1 when the marker was epoch and is now "stale:<epoch>", 0 otherwise (nothing written).
extern const storage::RedisScript kMarkStaleScript;

}  // namespace ferry::seckill
