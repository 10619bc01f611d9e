#pragma once

#include <cstdint>
#include <span>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_connection.h"
#include "storage/like_clock.h"
#include "storage/like_database.h"

namespace ferry::like {

// What LikeDatabase's files share inside a transaction: a partition's row (its checkpoint and
// feed number, made for every partition by Initialize) and the feed rows it numbers.

// The checkpoint of a row of "generation, last_id, feed_seq".
PartitionCheckpoint CheckpointOf(const storage::SqlRow& row);
// The partition's row, locked until the transaction ends.
Status LockPartition(storage::SqlConnection& c, uint32_t partition, PartitionCheckpoint* out);
Status SavePartition(storage::SqlConnection& c, uint32_t partition,
                     const PartitionCheckpoint& checkpoint);
// `events` appended to the partition's feed as numbers first_seq, first_seq + 1, ...
Status AppendToFeed(storage::SqlConnection& c, uint32_t partition, int64_t first_seq,
                    std::span<const LikeEvent* const> events, int64_t now_ms);

// A dead letter kept (once per stream entry).
Status AddDeadLetter(storage::SqlConnection& c, const DeadLetter& dead_letter, int64_t now_ms);

}  // namespace ferry::like
