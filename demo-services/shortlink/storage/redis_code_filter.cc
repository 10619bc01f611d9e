#include "storage/redis_code_filter.h"

#include <hiredis.h>

#include <chrono>
#include <random>

namespace ferry::shortlink {

namespace {

using storage::RedisReplyPtr;

// KEYS current, bitmap; ARGV shape, positions. -1: not this provider's view, or no bitmap.
constexpr std::string_view kCheck = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
for i = 2, #ARGV do
  if redis.call('GETBIT', KEYS[2], ARGV[i]) == 0 then return 0 end
end
return 1
)lua";

// KEYS current, pending, current bitmap, its count, pending bitmap, its count; ARGV current
// shape ('' none), pending shape, how many positions of the current come first, positions.
// -1: not this provider's view. A current filter whose bitmap is gone (evicted) is dropped.
constexpr std::string_view kAdd = R"lua(
local current = redis.call('GET', KEYS[1]) or ''
local pending = redis.call('GET', KEYS[2]) or ''
if current ~= ARGV[1] or pending ~= ARGV[2] then return -1 end
local n = tonumber(ARGV[3])
local function add(bitmap, count, from, to)
  local fresh = false
  for i = from, to do
    if redis.call('SETBIT', bitmap, ARGV[i], 1) == 0 then fresh = true end
  end
  if fresh then redis.call('INCR', count) end
end
if current ~= '' then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('DEL', KEYS[1])
    return -1
  end
  add(KEYS[3], KEYS[4], 4, 3 + n)
end
if pending ~= '' then add(KEYS[5], KEYS[6], 4 + n, #ARGV) end
return 1
)lua";

// KEYS lease, pending, current; ARGV token, shape, lease ms, the current shape seen ('').
// 1: this provider builds `shape`; 0: someone else does, or the view is old.
constexpr std::string_view kStart = R"lua(
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then return 0 end
local pending = redis.call('GET', KEYS[2])
if (redis.call('GET', KEYS[3]) or '') ~= ARGV[4] or (pending and pending ~= ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('SET', KEYS[2], ARGV[2])
return 1
)lua";

// KEYS current, pending, lease, new bitmap, old bitmap, old count; ARGV token, shape.
// 0: the lease or the bitmap was lost meanwhile (Redis restarted, flushed, evicted).
constexpr std::string_view kFinish = R"lua(
if redis.call('GET', KEYS[3]) ~= ARGV[1] or redis.call('GET', KEYS[2]) ~= ARGV[2] or
   redis.call('EXISTS', KEYS[4]) == 0 then
  return 0
end
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2], KEYS[3])
if old and old ~= ARGV[2] then
  redis.call('PEXPIRE', KEYS[5], 60000)
  redis.call('PEXPIRE', KEYS[6], 60000)
end
return 1
)lua";

constexpr int64_t kLeaseMs = 300'000;
constexpr std::chrono::milliseconds kViewRetry{100};
constexpr size_t kUploadChunk = 4 << 20;

std::vector<std::string> PositionArgs(const std::vector<uint64_t>& positions) {
  std::vector<std::string> args;
  args.reserve(positions.size());
  for (uint64_t p : positions) args.push_back(std::to_string(p));
  return args;
}

std::optional<BloomShape> ShapeOf(const redisReply* r) {
  BloomShape shape;
  if (storage::IsTextReply(r) && BloomShape::Parse(storage::ReplyText(r), &shape)) return shape;
  return std::nullopt;
}

std::string NameOf(const std::optional<BloomShape>& shape) { return shape ? shape->Name() : ""; }

}  // namespace

RedisCodeFilter::RedisCodeFilter(storage::RedisConnectionPool* pool, const BloomHasher* hasher,
                                 double false_positive_rate, std::function<int64_t()> generation)
    : pool_(pool),
      scripts_(pool, {{"bloom_check", kCheck},
                      {"bloom_add", kAdd},
                      {"bloom_start", kStart},
                      {"bloom_finish", kFinish}}),
      hasher_(hasher),
      false_positive_rate_(false_positive_rate),
      generation_(std::move(generation)) {}

std::string RedisCodeFilter::Key(int64_t generation, std::string_view what) const {
  return "shortlink:bloom:g" + std::to_string(generation) + ":" + std::string(what);
}

std::string RedisCodeFilter::BitmapKey(int64_t generation,
                                       const std::optional<BloomShape>& shape) const {
  return Key(generation, shape ? shape->Name() : "none");
}

RedisCodeFilter::View RedisCodeFilter::SeenView() const {
  std::lock_guard lock(mu_);
  return view_;
}

std::optional<BloomShape> RedisCodeFilter::current() const { return SeenView().current; }

Status RedisCodeFilter::ReadView(View* view) {
  view->generation = generation_();
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(
          {{"GET", Key(view->generation, "current")}, {"GET", Key(view->generation, "pending")}},
          &replies);
      !s.ok()) {
    return s;
  }
  view->current = ShapeOf(replies[0].get());
  view->pending = ShapeOf(replies[1].get());
  view->read_at = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  view_ = *view;
  return Status::Ok();
}

Status RedisCodeFilter::Check(const std::string& code, FilterAnswer* answer) {
  *answer = FilterAnswer::kUnknown;
  View view = SeenView();
  for (int attempt = 0; attempt < 2; ++attempt) {
    // Without a filter in view, another provider (or this one's job) may have built one since:
    // looked for again, at most every kViewRetry.
    const bool none_lately =
        !view.current && std::chrono::steady_clock::now() - view.read_at > kViewRetry;
    if (view.generation != generation_() || attempt > 0 || none_lately) {
      if (Status s = ReadView(&view); !s.ok()) return s;
    }
    if (view.generation == 0 || !view.current) return Status::Ok();
    std::vector<std::string> args = PositionArgs(hasher_->Positions(code, *view.current));
    args.insert(args.begin(), view.current->Name());
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(
            0, {Key(view.generation, "current"), BitmapKey(view.generation, view.current)}, args,
            &reply);
        !s.ok()) {
      return s;
    }
    if (reply->type != REDIS_REPLY_INTEGER) return storage::MalformedReply("bloom_check");
    if (reply->integer >= 0) {
      *answer = reply->integer == 0 ? FilterAnswer::kNo : FilterAnswer::kMaybe;
      return Status::Ok();
    }
  }
  return Status::Ok();  // still not this provider's view: the database answers
}

Status RedisCodeFilter::Add(const std::string& code) {
  View view = SeenView();
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (view.generation != generation_() || attempt > 0) {
      if (Status s = ReadView(&view); !s.ok()) return s;
    }
    if (view.generation == 0) return Status::Ok();  // no generation: nothing to add to yet
    std::vector<std::string> args = {NameOf(view.current), NameOf(view.pending), "0"};
    if (view.current) {
      std::vector<std::string> positions = PositionArgs(hasher_->Positions(code, *view.current));
      args[2] = std::to_string(positions.size());
      args.insert(args.end(), positions.begin(), positions.end());
    }
    if (view.pending) {
      std::vector<std::string> positions = PositionArgs(hasher_->Positions(code, *view.pending));
      args.insert(args.end(), positions.begin(), positions.end());
    }
    const std::string current = BitmapKey(view.generation, view.current);
    const std::string pending = BitmapKey(view.generation, view.pending);
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(1,
                                 {Key(view.generation, "current"), Key(view.generation, "pending"),
                                  current, current + ":count", pending, pending + ":count"},
                                 args, &reply);
        !s.ok()) {
      return s;
    }
    if (reply->type != REDIS_REPLY_INTEGER) return storage::MalformedReply("bloom_add");
    if (reply->integer == 1) return Status::Ok();
  }
  return Status(StatusCode::UNAVAILABLE, "the Bloom filter kept changing under an add");
}

Status RedisCodeFilter::Maintain(const CodeSource& codes) {
  View view;
  if (Status s = ReadView(&view); !s.ok()) return s;
  if (view.generation == 0) return Status(StatusCode::UNAVAILABLE, "Redis generation unknown");
  if (view.current && !view.pending) {
    std::vector<RedisReplyPtr> replies;
    const std::string bitmap = BitmapKey(view.generation, view.current);
    if (Status s = pool_->RunPipeline({{"EXISTS", bitmap}, {"GET", bitmap + ":count"}}, &replies);
        !s.ok()) {
      return s;
    }
    const bool present = replies[0]->type == REDIS_REPLY_INTEGER && replies[0]->integer == 1;
    const int64_t count = storage::IsTextReply(replies[1].get())
                              ? std::stoll(std::string(storage::ReplyText(replies[1].get())))
                              : 0;
    if (present &&
        static_cast<uint64_t>(count) <= CapacityOf(*view.current, false_positive_rate_)) {
      return Status::Ok();
    }
    if (!present) {
      // Evicted: no filter until the next one is built; Check meanwhile finds no bitmap.
      RedisReplyPtr reply;
      (void)pool_->Run({"DEL", Key(view.generation, "current")}, &reply);
      view.current.reset();
    }
  }
  return Build(view, codes);
}

// Builds the pending filter (or the first one) under the lease; without the lease, nothing.
Status RedisCodeFilter::Build(const View& view, const CodeSource& codes) {
  uint64_t links = 0;
  if (Status s = codes.count(&links); !s.ok()) return s;
  const BloomShape shape = view.pending ? *view.pending : ShapeFor(links, false_positive_rate_);
  const std::string token =
      std::to_string(std::random_device()()) + "-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  const int64_t gen = view.generation;
  RedisReplyPtr reply;
  if (Status s = scripts_.Eval(
          2, {Key(gen, "lease"), Key(gen, "pending"), Key(gen, "current")},
          {token, shape.Name(), std::to_string(kLeaseMs), NameOf(view.current)}, &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type != REDIS_REPLY_INTEGER || reply->integer != 1) return Status::Ok();
  {
    std::lock_guard lock(mu_);
    if (view_.generation == gen) view_.pending = shape;
  }
  // Redis's bit order: bit 0 is the top bit of byte 0.
  std::string bits(shape.bits() / 8, '\0');
  uint64_t filled = 0;
  if (Status s = codes.for_each([&](const std::string& code) {
        for (uint64_t p : hasher_->Positions(code, shape)) {
          bits[p / 8] = static_cast<char>(bits[p / 8] | (0x80 >> (p % 8)));
        }
        ++filled;
      });
      !s.ok()) {
    return s;
  }
  const std::string bitmap = BitmapKey(gen, shape);
  const std::string upload = bitmap + ":upload:" + token;
  std::vector<std::vector<std::string>> commands;
  for (size_t at = 0; at < bits.size(); at += kUploadChunk) {
    commands.push_back({"SETRANGE", upload, std::to_string(at), bits.substr(at, kUploadChunk)});
  }
  // ORed into what the creates meanwhile added, never over it.
  commands.push_back({"BITOP", "OR", bitmap, bitmap, upload});
  commands.push_back({"DEL", upload});
  commands.push_back({"INCRBY", bitmap + ":count", std::to_string(filled)});
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  for (const RedisReplyPtr& r : replies) {
    if (r->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("bloom upload", r.get());
  }
  const std::string old = BitmapKey(gen, view.current);
  if (Status s = scripts_.Eval(3,
                               {Key(gen, "current"), Key(gen, "pending"), Key(gen, "lease"), bitmap,
                                old, old + ":count"},
                               {token, shape.Name()}, &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type != REDIS_REPLY_INTEGER || reply->integer != 1) {
    return Status(StatusCode::UNAVAILABLE,
                  "Redis lost the Bloom filter being built (restarted, flushed or evicted); it is "
                  "built again");
  }
  View seen;
  return ReadView(&seen);
}

}  // namespace ferry::shortlink
